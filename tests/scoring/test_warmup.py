"""Start-up warm-up: the typed stages' lazy tables are loaded, the encoder is not."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_warm_up_loads_the_typed_tables_and_no_encoder() -> None:
    code = textwrap.dedent(
        """
        import sys
        from monitor.equivalence.reference_data import airports, gazetteer, wordnet
        from monitor.equivalence.values import quantities
        from monitor.scoring.warmup import warm_up
        assert gazetteer._INDEX is None and airports._INDEX is None and quantities._REGISTRY is None
        assert wordnet._table.cache_info().currsize == 0
        warm_up()
        # WordNet looked for (read when installed; absent, the check is off and it is not looked for again)
        loaded = (gazetteer._INDEX, airports._INDEX, quantities._REGISTRY, wordnet._table.cache_info().currsize or None)
        print(*(x is not None for x in loaded), "torch" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1].split() == ["True", "True", "True", "True", "False"]
