"""Value equivalence: exact fast path -> typed comparison -> calibrated semantic score."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import structlog

from monitor.equivalence import typed
from monitor.equivalence.calibration import remainders, value_features, value_score, value_text, value_tokens
from monitor.equivalence.facts import extract_facts, facts_agree
from monitor.equivalence.normalize import (
    STOPWORDS,
    alias_set,
    american,
    canon_string,
    categorize,
    fold,
    timezone_city,
    tokens,
)
from monitor.equivalence.places import place_relation
from monitor.equivalence.semantic import SemanticScorer
from monitor.equivalence.types import Match

log = structlog.get_logger(__name__)

_EXACT = Match(True, 1.0, "exact")


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, str | int | float | bool)


def _acronym_of(short: str, long_: str) -> bool:
    """"PG&E" / "Pacific Gas and Electric", "EPL" / "English Premier League", "NBA" / "National Basketball ..."."""
    letters = re.sub(r"[^a-z0-9]", "", short)
    words = tokens(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", long_))  # camelCase: "PlayStation" -> "Play Station"
    if len(letters) < 2 or len(words) < 2 or " " in short.strip():
        return False

    def initial(w: str) -> str:
        return w if w.isdigit() else w[0]

    with_stop = "".join(initial(w) for w in words)
    without = "".join(initial(w) for w in words if w not in STOPWORDS)
    return letters in (with_stop, without)


class ValueComparator:
    """Decides whether a predicted value is equivalent to a gold value (tool arguments, reply facts)."""

    def __init__(self, semantic: SemanticScorer | None = None, threshold: float = 0.5) -> None:
        self.semantic = semantic
        self.threshold = threshold

    # ------------------------------------------------------------------ public API
    def compare(self, gold: Any, pred: Any, field: str | None = None) -> Match:
        return self._compare(gold, pred)

    def prefetch(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        """Encode, in one batch, every text that semantic comparison of ``pairs`` will need."""
        if self.semantic is None:
            return
        texts: list[str] = []
        for gold, pred in pairs:
            self._collect(gold, pred, texts)
        if texts:
            self.semantic.prefetch(list(dict.fromkeys(texts)))

    def supported(self, value: Any, sources: Sequence[Any]) -> Match:
        """Is ``value`` supported by any source (user text, earlier tool outputs as JSON values)?"""
        best = Match(False, 0.0, "unsupported")
        for src in sources:
            m = self._supported_by(value, src)
            if m.equivalent and m.score >= best.score:
                best = m
                if m.score >= 1.0:
                    return best
            elif not best.equivalent and m.score > best.score:
                best = Match(False, m.score, m.method)
        return best

    # ------------------------------------------------------------------ comparison
    def _compare(self, gold: Any, pred: Any) -> Match:
        if gold == pred and type(gold) is type(pred):
            return _EXACT
        if isinstance(gold, Mapping) or isinstance(pred, Mapping):
            return self._compare_objects(gold, pred)
        if isinstance(gold, list | tuple) or isinstance(pred, list | tuple):
            return self._compare_lists(gold, pred)
        if gold is None or pred is None:
            empty = {"", "none", "null"}
            other = pred if gold is None else gold
            ok = other is None or (isinstance(other, str) and canon_string(other) in empty)
            return Match(ok, 1.0 if ok else 0.0, "exact")
        return self._compare_scalars(gold, pred)

    def _compare_objects(self, gold: Any, pred: Any) -> Match:
        if not (isinstance(gold, Mapping) and isinstance(pred, Mapping)):
            parsed = self._maybe_json(gold), self._maybe_json(pred)
            if isinstance(parsed[0], Mapping) and isinstance(parsed[1], Mapping):
                return self._compare_objects(*parsed)
            return Match(False, 0.0, "object")
        gk = {canon_string(str(k)): k for k in gold}
        pk = {canon_string(str(k)): k for k in pred}
        if set(gk) != set(pk):
            return Match(False, 0.0, "object")
        if not gk:
            return Match(True, 1.0, "object")
        scores = []
        ok = True
        for k, g_key in gk.items():
            m = self._compare(gold[g_key], pred[pk[k]])
            ok = ok and m.equivalent
            scores.append(m.score)
        score = min(scores)
        return Match(ok, score if ok else min(score, 0.49), "object")

    def _compare_lists(self, gold: Any, pred: Any) -> Match:
        g = list(gold) if isinstance(gold, list | tuple) else self._as_list(gold)
        p = list(pred) if isinstance(pred, list | tuple) else self._as_list(pred)
        if g is None or p is None:
            return Match(False, 0.0, "list")
        if len(g) != len(p):
            return Match(False, 0.0, "list")
        if not g:
            return Match(True, 1.0, "list")
        # Positional first (cheap, and right for ordered lists), then order-insensitive matching.
        positional = [self._compare(a, b) for a, b in zip(g, p, strict=True)]
        if all(m.equivalent for m in positional):
            return Match(True, min(m.score for m in positional), "list")
        remaining = list(range(len(p)))
        scores: list[float] = []
        ok = True
        for a in g:
            best_j, best = -1, Match(False, -1.0, "list")
            for j in remaining:
                m = self._compare(a, p[j])
                if m.equivalent > best.equivalent or (m.equivalent == best.equivalent and m.score > best.score):
                    best_j, best = j, m
            remaining.remove(best_j)
            ok = ok and best.equivalent
            scores.append(max(best.score, 0.0))
        score = min(scores)
        return Match(ok, score if ok else min(score, 0.49), "list")

    @staticmethod
    def _as_list(v: Any) -> list[Any] | None:
        if isinstance(v, str):
            parsed = ValueComparator._maybe_json(v)
            if isinstance(parsed, list):
                return parsed
            return [v]
        return [v]

    @staticmethod
    def _maybe_json(v: Any) -> Any:
        if isinstance(v, str) and v.strip()[:1] in "[{":
            try:
                return json.loads(v)
            except ValueError:
                return v
        return v

    def _compare_scalars(self, gold: Any, pred: Any) -> Match:
        typed_match = self._typed(gold, pred)
        if typed_match is not None:
            return typed_match
        structured = self._structured(gold, pred)
        if structured is not None:
            return structured
        return self._semantic(str(gold), str(pred))

    def _structured(self, gold: Any, pred: Any) -> Match | None:
        """Comma-structured values ("Boston, MA", "Naples, FL"): compare the heads, tails must agree."""
        if not (isinstance(gold, str) and isinstance(pred, str)):
            return None
        gp = [x.strip() for x in gold.split(",") if x.strip()]
        pp = [x.strip() for x in pred.split(",") if x.strip()]
        if len(gp) < 2 and len(pp) < 2:
            return None
        if len(gp) >= 2 and len(pp) >= 2:
            for a, b in zip(gp[1:], pp[1:], strict=False):
                ca, cb = categorize(a), categorize(b)
                shared = ca.keys() & cb.keys()
                if shared and not any(ca[c] & cb[c] for c in shared):
                    return Match(False, 0.1, "structured")
        m = self._compare_scalars(gp[0], pp[0])
        return Match(m.equivalent, m.score, m.method if m.method != "exact" else "structured")

    def _pairs_for_semantic(self, gold: Any, pred: Any) -> list[tuple[str, str]]:
        """The (gold, pred) string pairs the semantic stage will score for a scalar pair."""
        if self._typed(gold, pred) is not None:
            return []
        if isinstance(gold, str) and isinstance(pred, str) and ("," in gold or "," in pred):
            gh = next((x.strip() for x in gold.split(",") if x.strip()), "")
            ph = next((x.strip() for x in pred.split(",") if x.strip()), "")
            if gh and ph and (gh, ph) != (gold, pred):
                return self._pairs_for_semantic(gh, ph)
        return [(str(gold), str(pred))]

    def _typed(self, gold: Any, pred: Any) -> Match | None:
        """Typed comparison; None when neither value has a type that decides."""
        gs, ps = str(gold) if not isinstance(gold, bool) else str(gold).lower(), (
            str(pred) if not isinstance(pred, bool) else str(pred).lower()
        )
        if canon_string(gs) == canon_string(ps):
            return _EXACT
        # e-mail addresses and URLs are identifiers: exact after normalisation
        ge, pe = typed.email_key(gs), typed.email_key(ps)
        if ge is not None and pe is not None:
            return Match(ge == pe, 1.0 if ge == pe else 0.0, "email")
        gu, pu = typed.url_key(gs), typed.url_key(ps)
        if gu is not None and pu is not None:
            return Match(gu == pu, 1.0 if gu == pu else 0.0, "url")
        # booleans
        gb, pb = typed.as_bool(gold), typed.as_bool(pred)
        if isinstance(gold, bool) or isinstance(pred, bool) or (gb is not None and pb is not None):
            if gb is None:
                gb = {1.0: True, 0.0: False}.get(typed.number_of(gold) or -1.0)
            if pb is None:
                pb = {1.0: True, 0.0: False}.get(typed.number_of(pred) or -1.0)
            ok = gb is not None and gb == pb
            return Match(ok, 1.0 if ok else 0.0, "bool")
        if not isinstance(gold, str) and not isinstance(pred, str):
            gn, pn = typed.number_of(gold), typed.number_of(pred)
            if gn is not None and pn is not None:
                ok = typed.numbers_close(gn, pn)
                return Match(ok, 1.0 if ok else 0.0, "number")
        # seasons / spans of consecutive years: "2019-2020" / "2019/20" / "19-20"
        gr, pr = typed.parse_year_range(gs), typed.parse_year_range(ps)
        if gr is not None and pr is not None:
            ok = typed.year_ranges_equal(gr, pr)
            return Match(ok, 1.0 if ok else 0.0, "year-range")
        if (gr is None) != (pr is None):
            # a season and a year: the season is named by either of its years ("2019-20" / "2020")
            season, other = (gr, ps) if gr is not None else (pr, gs)
            year = re.fullmatch(r"\d{4}", typed.canon(other))
            if year is not None and season is not None:
                y = int(year.group(0))
                ok = y in season[:2] if season[2] else y % 100 in (season[0] % 100, season[1] % 100)
                return Match(ok, 0.8 if ok else 0.0, "year-range")
        # dates and clock times
        gd, pd = typed.parse_date(gs), typed.parse_date(ps)
        if (gd is None) != (pd is None):
            # a month alone against a month of some year ("December" / "12/2022"): the year is unspecified
            dated, other = (gd, ps) if gd is not None else (pd, gs)
            months = categorize(other).get("month")
            if dated is not None and months and all(day is None for _, _, day in dated.candidates):
                names = {typed.month_name(m) for _, m, _ in dated.candidates}
                ok = bool(names & months)
                return Match(ok, 0.8 if ok else 0.0, "date")
        if gd is not None and pd is not None:
            ok = typed.dates_equal(gd, pd)
            return Match(ok, 1.0 if ok else 0.0, "date")
        gt, pt = typed.parse_time(gs), typed.parse_time(ps)
        if gt is not None and pt is not None:
            ok = gt == pt
            return Match(ok, 1.0 if ok else 0.0, "time")
        if (gd is not None) != (pd is not None) and (gt is not None or pt is not None):
            # a date against a clock time
            return Match(False, 0.0, "date")
        # money and quantities
        gm, pm = typed.parse_money(gs), typed.parse_money(ps)
        gn, pn = typed.number_of(gold), typed.number_of(pred)
        if gm is not None or pm is not None:
            ga = gm.amount if gm else gn
            pa = pm.amount if pm else pn
            if ga is not None and pa is not None:
                same_cur = gm is None or pm is None or gm.currency is None or pm.currency is None or (
                    gm.currency == pm.currency
                )
                ok = same_cur and typed.numbers_close(ga, pa)
                return Match(ok, 1.0 if ok else 0.0, "money")
        gq, pq = typed.parse_quantity(gs), typed.parse_quantity(ps)
        if (gq is None) != (pq is None):
            # a unit named alone is one of it: "year" / "12 months", but "year" / "5 years" differ
            unit = typed.bare_unit(gs if gq is None else ps)
            if unit is not None:
                gq = gq or typed.Quantity(1.0, unit)
                pq = pq or typed.Quantity(1.0, unit)
        if gq is not None and pq is not None:
            ok = typed.quantities_equal(gq, pq)
            return Match(ok, 1.0 if ok else 0.0, "quantity" if gq.unit != pq.unit else "number")
        if gq is not None or pq is not None:
            ga = gq.amount if gq else gn
            pa = pq.amount if pq else pn
            if ga is not None and pa is not None:
                ok = typed.numbers_close(ga, pa)
                return Match(ok, 1.0 if ok else 0.0, "number")
        if gn is not None and pn is not None:
            ok = typed.numbers_close(gn, pn)
            return Match(ok, 1.0 if ok else 0.0, "number")
        if (gn is not None) != (pn is not None) and (
            isinstance(gold, int | float) or isinstance(pred, int | float)
        ):
            return Match(False, 0.0, "number")
        # places at any granularity: "Seattle" / "Seattle, WA" / "WA" (but not "Seattle" / "CA")
        rel = place_relation(gs, ps)
        if rel is not None:
            if rel == "different":
                return Match(False, 0.05, "place")
            return Match(True, 0.9 if rel == "same" else 0.8, "place" if rel == "same" else "place-granularity")
        # opposites: embeddings put "cheap" next to "expensive"; one opposite for another is a different value
        if antonym_clash(gs, ps):
            return Match(False, 0.05, "antonym")
        # closed classes: states, countries, currencies, units, time zones
        gc, pc = categorize(gs), categorize(ps)
        shared = gc.keys() & pc.keys()
        if shared:
            ok = any(gc[c] & pc[c] for c in shared)
            return Match(ok, 0.95 if ok else 0.05, sorted(shared)[0])
        if "timezone" in gc or "timezone" in pc:
            zone_g = next(iter(gc["timezone"])) if "timezone" in gc else timezone_city(gs)
            zone_p = next(iter(pc["timezone"])) if "timezone" in pc else timezone_city(ps)
            if zone_g is not None and zone_p is not None:
                ok = zone_g == zone_p
                return Match(ok, 0.9 if ok else 0.05, "timezone")
        # abbreviations and aliases
        ga_set, pa_set = alias_set(gs), alias_set(ps)
        if ga_set & pa_set:
            return Match(True, 0.95, "abbreviation")
        short, long_ = (gs, ps) if len(gs) <= len(ps) else (ps, gs)
        if _acronym_of(fold(short), long_.strip()):
            return Match(True, 0.9, "abbreviation")
        s_key, l_key = canon_string(short).rstrip("."), canon_string(long_)
        written_short = short.strip().isupper() or short.strip().endswith(".")
        if written_short and len(s_key) >= 3 and s_key.isalpha() and l_key.isalpha() and l_key.startswith(s_key):
            return Match(True, 0.8, "abbreviation")  # a clipped word: "ENG" / "England", "Dept." / "Department"
        # formulas: one expression in a canonical spelling ("lambda x: 3x**2" / "3*x**2", not "exp(-x**2)")
        gf, pf = typed.formula_key(gs), typed.formula_key(ps)
        if gf is not None and pf is not None:
            return Match(gf == pf, 1.0 if gf == pf else 0.0, "formula")
        # identifiers: exact up to case and separators
        g_id, p_id = typed.looks_like_identifier(gs), typed.looks_like_identifier(ps)
        if g_id or p_id:
            ok = typed.identifier_key(gs) == typed.identifier_key(ps)
            if not ok and not (g_id and p_id):
                # one side is a phrase: it must name exactly this id ("flight UA-100" / "UA-100")
                the_id, phrase = (gs, ps) if g_id else (ps, gs)
                ids_in_phrase = [t for t in phrase.split() if typed.looks_like_identifier(t)]
                ok = [typed.identifier_key(t) for t in ids_in_phrase] == [typed.identifier_key(the_id)]
                if ok:
                    return Match(True, 0.8, "identifier")
            return Match(ok, 1.0 if ok else 0.0, "identifier")
        gt_, pt_ = value_text(gs), value_text(ps)
        if gt_ == pt_ or value_tokens(gt_) == value_tokens(pt_):
            return Match(True, 0.95, "abbreviation")
        g_sp, p_sp = (tuple(american(t) for t in value_tokens(x)) for x in (gt_, pt_))
        if g_sp == p_sp:  # British / American spelling, singular / plural: "Orthopaedic" / "Orthopedics"
            return Match(True, 0.9, "spelling")
        compact_g, compact_p = re.sub(r"[^a-z0-9]", "", gt_), re.sub(r"[^a-z0-9]", "", pt_)
        if compact_g and compact_g == compact_p:  # "mc donalds" / "McDonald's", "e-mail" / "email"
            return Match(True, 0.95, "exact")
        # numbers inside phrases must agree ("Room 101" vs "Room 102")
        fg = [f for f in extract_facts(gs) if f.kind != "entity"]
        fp = [f for f in extract_facts(ps) if f.kind != "entity"]
        if fg and fp:
            unmatched = [f for f in fg if not any(facts_agree(f, q) for q in fp)]
            unmatched_p = [f for f in fp if not any(facts_agree(f, q) for q in fg)]
            if unmatched or unmatched_p:
                return Match(False, 0.1, "number")
        # digits inside formulas, commands, names must agree ("2x**2 + 3x" / "3x**2 + 2x", "Room 101")
        gdig, pdig = re.findall(r"\d+(?:\.\d+)?", gs), re.findall(r"\d+(?:\.\d+)?", ps)
        if gdig and pdig and gdig != pdig:
            return Match(False, 0.1, "number")
        return None

    def _semantic(self, gold: str, pred: str) -> Match:
        a, b = value_text(gold), value_text(pred)
        if self.semantic is None:
            feats = value_features(a, b, 0.0)
            # Typed-only mode: token containment decides ("Louvre Museum" / "Louvre").
            ok = feats[1] >= 1.0 and feats[3] >= 1.0
            return Match(ok, 0.75 if ok else 0.25, "lexical")
        rest = remainders(a, b)
        sims = self.semantic.similarity([(a, b), rest] if rest else [(a, b)])
        score = value_score(value_features(a, b, sims[0], sims[1] if rest else None))
        return Match(score >= self.threshold, score, "semantic")

    def _collect(self, gold: Any, pred: Any, out: list[str]) -> None:
        if isinstance(gold, Mapping) and isinstance(pred, Mapping):
            gk = {canon_string(str(k)): k for k in gold}
            pk = {canon_string(str(k)): k for k in pred}
            for k in set(gk) & set(pk):
                self._collect(gold[gk[k]], pred[pk[k]], out)
            return
        if isinstance(gold, list | tuple) and isinstance(pred, list | tuple):
            if len(gold) == len(pred):
                for a in gold:
                    for b in pred:
                        self._collect(a, b, out)
            return
        if _is_scalar(gold) and _is_scalar(pred) and gold is not None and pred is not None:
            if gold == pred:
                return
            for a, b in self._pairs_for_semantic(gold, pred):
                ta, tb = value_text(a), value_text(b)
                out.extend((ta, tb))
                rest = remainders(ta, tb)
                if rest:
                    out.extend(rest)

    # ------------------------------------------------------------------ grounding
    def _supported_by(self, value: Any, source: Any) -> Match:
        if isinstance(value, Mapping):
            ms = [self._supported_by(v, source) for v in value.values()]
            return self._all(ms, "object")
        if isinstance(value, list | tuple):
            ms = [self._supported_by(v, source) for v in value]
            return self._all(ms, "list")
        if value is None or isinstance(value, bool):
            return Match(True, 1.0, "exact")
        if isinstance(source, Mapping):
            best = Match(False, 0.0, "unsupported")
            for k, v in source.items():
                for cand in (v, k):
                    m = self._supported_by(value, cand)
                    if m.equivalent:
                        return m
                    if m.score > best.score:
                        best = m
            return best
        if isinstance(source, list | tuple):
            best = Match(False, 0.0, "unsupported")
            for v in source:
                m = self._supported_by(value, v)
                if m.equivalent:
                    return m
                if m.score > best.score:
                    best = m
            return best
        if source is None:
            return Match(False, 0.0, "unsupported")
        src = str(source) if not isinstance(source, bool) else str(source).lower()
        direct = self._compare(value, source)
        if direct.equivalent and self._grounds(value, source, direct):
            return direct
        return self._in_text(value, src)

    @staticmethod
    def _grounds(value: Any, source: Any, m: Match) -> bool:
        """A place is grounded by itself or by a finer place in it ("WA" by "Seattle"), not by a coarser one."""
        if m.method != "place-granularity":
            return True
        return place_relation(str(value), str(source)) != "a_finer"

    @staticmethod
    def _all(ms: list[Match], method: str) -> Match:
        if not ms:
            return Match(True, 1.0, method)
        ok = all(m.equivalent for m in ms)
        return Match(ok, min(m.score for m in ms), method)

    def _in_text(self, value: Any, text: str) -> Match:
        """Is a scalar ``value`` stated somewhere in free ``text``?"""
        vs = str(value)
        key = canon_string(vs)
        if not key:
            return Match(True, 1.0, "exact")
        folded = fold(text)
        if typed.looks_like_identifier(vs):
            idk = typed.identifier_key(vs)
            for f in extract_facts(text):
                if f.kind in ("id", "entity", "number") and typed.identifier_key(f.text) == idk:
                    return Match(True, 1.0, "identifier")
            ok = re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", folded) is not None
            return Match(ok, 1.0 if ok else 0.0, "identifier")
        if re.search(rf"(?<![a-z0-9]){re.escape(key)}(?![a-z0-9])", folded):
            return Match(True, 1.0, "exact")
        facts = extract_facts(text)
        vfacts = [f for f in extract_facts(vs) if f.kind != "entity"]
        if isinstance(value, int | float) and not isinstance(value, bool):
            vfacts = vfacts or [f for f in extract_facts(str(value))]
        if vfacts:
            ok = all(any(facts_agree(vf, f) for f in facts) for vf in vfacts)
            if not ok:
                # a bare value such as "2024-06-20" against text "August 1st, 2024" etc.
                for f in facts:
                    typed_match = self._typed(vs, f.text)
                    if typed_match is not None and typed_match.equivalent and self._grounds(vs, f.text, typed_match):
                        return Match(True, 1.0, f.kind)
                return Match(False, 0.0, vfacts[0].kind)
            # the facts are there; a phrase around them must be mostly there too
            fact_tokens = {t for f in vfacts for t in value_tokens(value_text(f.text))}
            rest = set(value_tokens(value_text(vs))) - fact_tokens
            text_tokens = set(value_tokens(value_text(text)))
            if rest and len(rest & text_tokens) / len(rest) < 0.5:
                return Match(False, 0.3, vfacts[0].kind)
            return Match(True, 1.0, vfacts[0].kind)
        # dates / times written differently from the text's spelling
        for f in facts:
            m = self._typed(vs, f.text)
            if m is not None and m.equivalent and self._grounds(vs, f.text, m):
                return m
        # a phrase: every content token (after alias expansion) appears in the text
        vt = set(value_tokens(value_text(vs)))
        tt = set(value_tokens(value_text(text)))
        if vt and vt <= tt:
            return Match(True, 0.9, "contained")
        for reading in alias_set(vs):
            if re.search(rf"(?<![a-z0-9]){re.escape(reading)}(?![a-z0-9])", folded):
                return Match(True, 0.9, "abbreviation")
        for f in facts:
            if f.kind == "entity":
                m = self._compare(vs, f.text)
                if m.equivalent and self._grounds(vs, f.text, m):
                    return m
        overlap = len(vt & tt) / len(vt) if vt else 0.0
        return Match(False, round(0.49 * overlap, 4), "unsupported")


# General-knowledge opposites that tool arguments and replies use; either side may be inflected.
_OPPOSITES = (
    ("cheap", "expensive"), ("cheapest", "most expensive"), ("low", "high"), ("lowest", "highest"),
    ("min", "max"), ("minimum", "maximum"), ("increase", "decrease"), ("ascending", "descending"),
    ("asc", "desc"), ("before", "after"), ("first", "last"), ("oldest", "newest"), ("old", "new"),
    ("buy", "sell"), ("import", "export"), ("inbound", "outbound"), ("arrival", "departure"),
    ("credit", "debit"), ("deposit", "withdrawal"), ("add", "remove"), ("accept", "reject"),
    ("approve", "deny"), ("enable", "disable"), ("open", "closed"), ("on", "off"), ("in", "out"),
    ("up", "down"), ("north", "south"), ("east", "west"), ("left", "right"), ("start", "end"),
    ("include", "exclude"), ("public", "private"), ("male", "female"), ("win", "loss"),
    ("profit", "loss"), ("income", "expense"), ("morning", "evening"), ("am", "pm"),
)
_OPPOSITE_OF: dict[str, set[str]] = {}
for _a, _b in _OPPOSITES:
    _OPPOSITE_OF.setdefault(_a, set()).add(_b)
    _OPPOSITE_OF.setdefault(_b, set()).add(_a)


def _phrases(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", fold(text))
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


def antonym_clash(gold: str, pred: str) -> bool:
    """Does one side use a word whose opposite the other side uses instead ("cheap" / "expensive")?"""
    g, p = _phrases(gold), _phrases(pred)
    return any(word in _OPPOSITE_OF and (_OPPOSITE_OF[word] & (p - g)) for word in g - p)
