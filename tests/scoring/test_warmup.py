"""Start-up warm-up: the typed stages' lazy tables are loaded, the encoder is not."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_warm_up_loads_the_typed_tables_and_no_encoder() -> None:
    code = textwrap.dedent(
        """
        import sys
        from monitor.equivalence import airports, gazetteer
        from monitor.scoring.warmup import warm_up
        assert gazetteer._INDEX is None and airports._INDEX is None
        warm_up()
        print(gazetteer._INDEX is not None, airports._INDEX is not None, "torch" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1].split() == ["True", "True", "False"]
