"""The hybrid's screen against the dynamics on the default toy's magnets: the validation set's
drops rebuilt on ``toy`` (1.2 T), every trial the screen decides checked against the dynamics'
own trial (the same random numbers).

Run: ``.venv/bin/python -m validation.hybrid_toy_check FIRST COUNT TRIALS`` (cases FIRST to
FIRST + COUNT - 1; two halves on two cores: ``0 130 25`` and ``130 130 25``, about 2 min each).
What it found, and when: ``docs/validation/hybrid.md`` ("What chose the tests").
"""
import sys
import time
from dataclasses import replace

from magdomino.errors import InputError
from magdomino.model.presets import load_preset
from magdomino.physics.motion import Drop
from magdomino.studies.engines import get_engine
from magdomino.studies.hybrid_engine import decide, screen_trials
from magdomino.studies.trials import Job, resolve_noise, run_trial
from magdomino.studies.validation import case_scenario, load_cases
from validation import ROOT


def main(first, count, trials):
    cases = load_cases(ROOT / "tests" / "data" / "validation_set.json")
    toy = load_preset("toy")
    decided = wrong = items = 0
    falls = stood = 0
    t = time.time()
    for i in range(first, first + count):
        c = cases[i]
        if c.placement is None or not isinstance(c.placement[3], Drop):
            continue
        sc = replace(case_scenario(c), preset=toy)
        try:
            settled = get_engine("dynamics").starting_structure(sc)
        except InputError:
            continue
        items += 1
        job = Job(sc, settled, resolve_noise(sc), 1, (0.0, 0.0), None, get_engine("hybrid"))
        for row in screen_trials(job, 0, list(range(trials))):
            v = decide(row)
            if v is None:
                continue
            decided += 1
            d = run_trial(job, 0, row["trial"])
            ok = d["collapsed"] == (v == "falls") and (v == "falls" or not d["shifted"])
            falls += v == "falls"
            stood += v == "stood"
            if not ok:
                wrong += 1
                print("DISAGREE", i, row["trial"], v, d["reason"])
    print(f"{items} placements on toy, {items * trials} trials: decided {decided} (stood {stood}, falls {falls}), wrong {wrong}, "
          f"{time.time() - t:.0f} s")

if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
