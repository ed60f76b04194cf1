"""How `aem replay` names the conversations of a dialog (`<dialog_id>-<run tag>`, `#n` per repetition), and
the dialog ids such a conversation id may stand for, so its verdicts can be joined with the dialog files."""

from __future__ import annotations

import re
import secrets

TAG_BYTES = 3  # a run tag is 6 lowercase hex digits
_REPETITION = re.compile(r"#\d+$")
_RUN_TAG = re.compile(rf"-[0-9a-f]{{{2 * TAG_BYTES}}}$")


def run_tag() -> str:
    """A fresh run tag: replaying a file twice gives new conversations."""
    return secrets.token_hex(TAG_BYTES)


def conversation_ids(dialog_id: str, repeat: int, tag: str | None) -> list[str]:
    """The conversation id of each repetition of a dialog (`tag` None: the dialog id itself)."""
    base = dialog_id if tag is None else f"{dialog_id}-{tag}"
    return [base] if repeat == 1 else [f"{base}#{n}" for n in range(repeat)]


def dialog_id_candidates(conversation_id: str) -> list[str]:
    """The dialog ids a conversation id may be, most literal first: itself, without a repetition suffix,
    without a run tag."""
    found = [conversation_id]
    bare = _REPETITION.sub("", conversation_id)
    for candidate in (bare, _RUN_TAG.sub("", bare)):
        if candidate and candidate not in found:
            found.append(candidate)
    return found
