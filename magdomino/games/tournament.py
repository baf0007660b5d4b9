"""Tournaments: many one-deal games of one rule between player kinds, seats rotated.

:func:`run_tournament` plays ``deals`` independent one-deal games of any rule
(traditional, defi, quinconce, matador, echanges, vingt) between the player kinds of
``seats`` (one per seat) and returns a JSON-ready document (see :func:`run_tournament`).

Seating (what removes any seat-order advantage): deal ``d`` belongs to block ``d // n``
and is rotated by ``d % n`` (``n`` seats). Every block of ``n`` consecutive deals is the
same circular order rotated through every seat, so each entry of ``seats`` sits each seat
once per block; successive blocks take the ``(n - 1)!`` circular orders in turn (the
first entry fixed, the others permuted lexicographically), so every ``n!`` deals hold
every seating exactly once (who sits after whom is balanced too). ``deals`` a multiple of
``n`` balances the seats; leftover deals are played all the same and the document says
``"balanced": false``.

Randomness: ``numpy.random.SeedSequence(seed).spawn(deals)``; deal ``d``'s child gives
the game its seed, from which the game deals the tiles and spawns one stream per seat
for the players (:func:`magdomino.games.record.play_game` and its siblings). Each deal
depends on ``(seed, d)`` alone, so the document is the same for any number of workers.

Win share: a deal's win is split evenly between its winners (a tie of two gives each
1/2); an abandoned deal (the runaway guard) is not scored, and a deal with no winner (Le
jeu des échanges lost by the team) gives nobody a share. A kind's win share is its shares
summed over the natural deals, divided by their number; its 95 % interval is the exact
(Clopper-Pearson) binomial interval of ``scipy.stats.binomtest`` on the shares rounded to
a whole number of wins. Mean score: each seat's score in a natural deal (the rule's own
score: pips left for traditional/defi/quinconce, lower is better; points for matador and
vingt, higher is better; 0 for echanges), averaged per kind with a Student t interval.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from magdomino.checks import check_choice, check_count, check_seed, is_whole
from magdomino.errors import ARGUMENTS, InputError
from magdomino.games.core import make_game
from magdomino.games.family import PLACEMENT_GUARD, family_of
from magdomino.games.players import OPTIONAL_KINDS, players_of
from magdomino.games.session import CALLER_SEATS
from magdomino.model.presets import DEFAULT_PRESET, load_preset, with_overrides
from magdomino.optional import require
from magdomino.version import __version__

TOURNAMENT_VERSION = 1
RULES = ("traditional", "defi", "quinconce", "matador", "echanges", "vingt")
FLAT_RULES = ("traditional", "matador", "echanges", "vingt")
PHYSICS = ("dynamics", "statics", "none")
"""The built-in ``physics`` names; :func:`physics_names` adds every registered engine."""
SCORE_SENSE = {"traditional": "lower", "defi": "lower", "quinconce": "lower", "matador": "higher",
               "vingt": "higher", "echanges": "none"}
"""Which way a rule's scores are better (``none``: echanges scores nothing per seat)."""


def physics_names(*, deprecated: bool = True) -> tuple:
    """What a game's ``physics`` takes in every face: ``none``, or the name of an engine
    that judges games (:func:`magdomino.studies.engines.game_engine_names`: not the hybrid,
    which judges odds trials; an engine registered later comes by itself), and with
    ``deprecated`` the old spellings still accepted (``pybullet``)."""
    from magdomino.studies.engines import ALIASES, game_engine_names  # noqa: PLC0415 - on use: the engines bring physics (~0.1 s more)

    return tuple(dict.fromkeys(["none", *game_engine_names(), *(ALIASES if deprecated else ())]))


def physics_name(physics: str) -> str:
    """The one name of ``physics`` (``"none"`` or an engine's name: ``pybullet`` is ``dynamics``)."""
    from magdomino.studies.engines import engine_name  # noqa: PLC0415 - on use: the engines bring physics (~0.1 s more)

    return physics if physics == "none" else engine_name(physics)


def seating(seats: tuple, deal: int) -> tuple:
    """The seat order of deal ``deal`` (module docstring): block ``deal // n``'s circular
    order, rotated by ``deal % n``. ``seating(seats, d)[s]`` is who sits at seat ``s``."""
    n = len(seats)
    orders = list(itertools.permutations(range(1, n)))  # the (n-1)! circular orders, entry 0 first
    block, turn = divmod(deal, n)
    order = (0, *orders[block % len(orders)])
    return tuple(seats[order[(s + turn) % n]] for s in range(n))


def deal_seeds(seed: int, deals: int) -> list[int]:
    """One game seed per deal from ``SeedSequence(seed).spawn(deals)``."""
    return [_deal_seed(seed, d) for d in range(deals)]


def _deal_seed(seed: int, deal: int) -> int:
    # The same child as SeedSequence(seed).spawn(deals)[deal] (children are keyed by index).
    return int(np.random.SeedSequence(seed, spawn_key=(deal,)).generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class TournamentJob:
    """What a worker needs to play any deal (picklable)."""

    rule: str
    seats: tuple
    seed: int
    deals: int
    physics: str = "none"
    preset: str | None = None
    magnets: bool = True
    max_placements: int | None = None
    overrides: tuple = ()
    """The preset's overrides, ``((key, value), ...)`` (:func:`magdomino.model.presets.with_overrides`)."""
    objects: tuple = ()
    """The player objects that sit, ``((name, object), ...)``: ``seats`` names them."""


def job_preset(job: TournamentJob):
    """The preset the deals of ``job`` are judged with: ``job.preset`` with ``job.overrides``."""
    preset = load_preset(job.preset or DEFAULT_PRESET)
    return with_overrides(preset, dict(job.overrides)) if job.overrides else preset


def _adjudicator(job: TournamentJob):
    """The deal's adjudicator: the engine ``job.physics`` names judges (None: no physics)."""
    if job.physics == "none":
        return None
    from magdomino.studies.engines import get_engine  # noqa: PLC0415 - on use: the engines bring physics (~0.1 s more)

    return get_engine(job.physics, key="physics").adjudicator(job_preset(job), magnets=job.magnets)


def play_deal(job: TournamentJob, deal: int) -> dict:
    """Play deal ``deal`` of the tournament and return its row (see :func:`run_tournament`)."""
    return deal_row(job, deal, *play_deal_record(job, deal))


def play_deal_record(job: TournamentJob, deal: int) -> tuple:
    """Play deal ``deal``: ``(kinds, game_seed, record, results)``, its seating, its game's seed,
    the game's record and its per-deal results (what :func:`deal_row` sums up)."""
    kinds = seating(job.seats, deal)
    game_seed = _deal_seed(job.seed, deal)
    players = [dict(job.objects).get(k, k) for k in kinds] if job.objects else list(kinds)
    family = family_of(job.rule)
    options = {"max_placements": job.max_placements} if family.guard is not None else {}
    physics = _adjudicator(job)
    try:
        record = family.play(job.rule, len(kinds), game_seed, players, options, physics)
    finally:
        if physics is not None:
            physics.close()
    return kinds, game_seed, record, record[family.deals_key]


def deal_row(job: TournamentJob, deal: int, kinds: tuple, game_seed: int, record: dict, results: list) -> dict:
    """A played deal's row (see :func:`run_tournament`)."""
    reason = results[-1]["reason"] if results else "unknown"
    abandoned = reason == "abandoned"
    winners = [] if abandoned else list(record["winners"])
    shares = {k: 0.0 for k in dict.fromkeys(job.seats)}
    for w in winners:
        shares[kinds[w]] += 1.0 / len(winners)
    events = record["events"]
    return {
        "deal": deal,
        "seed": game_seed,
        "seating": list(kinds),
        "winners": winners,
        "win_shares": shares,
        "scores": [float(s) for s in record["scores"]],
        "reason": reason,
        "ended": "abandoned" if abandoned else "natural",
        "collapses": sum(1 for e in events if e["type"] == "collapse"),
        "placements": sum(1 for e in events if e["type"] == "place"),
    }


def check_deal_record(record: dict, seats) -> str | None:
    """What a stored deal record (:func:`play_deal`) lacks to be counted (None: nothing)."""
    n = len(seats)

    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    if not isinstance(record.get("seating"), list) or sorted(map(str, record["seating"])) != sorted(seats):
        return f"a seating of the seats {', '.join(seats)}"
    if not isinstance(record.get("scores"), list) or len(record["scores"]) != n or not all(map(number, record["scores"])):
        return f"scores: {n} numbers"
    winners = record.get("winners")
    if not isinstance(winners, list) or not all(is_whole(w) and 0 <= w < n for w in winners):
        return f"winners: seats 0..{n - 1}"
    shares = record.get("win_shares")
    if not isinstance(shares, dict) or set(shares) != set(seats) or not all(map(number, shares.values())):
        return "win_shares: a number per player kind"
    if record.get("ended") not in ("natural", "abandoned") or not isinstance(record.get("reason"), str):
        return "ended natural or abandoned, and a reason"
    for key in ("collapses", "placements"):
        if not is_whole(record.get(key)) or record[key] < 0:
            return f"{key}: a whole number >= 0"
    return None


def run_deals(job: TournamentJob, what_if, deals: list[int]) -> list[dict]:
    """A chunk of deals on a worker (the :func:`magdomino.studies.runner.execute` protocol)."""
    return [{"what_if": what_if, "trial": d, **play_deal(job, d)} for d in deals]


def check_tournament(rule: str, seats, deals: int, physics: str, objects: bool = False) -> tuple:
    """Refuse a bad tournament before anything runs (one-line InputErrors, library names).
    ``objects``: player objects may sit (the player protocol, :mod:`magdomino.games.session`);
    else only player kinds. A seat a person drives (``human``, ``me``) is refused."""
    check_choice(rule, "rule", RULES)
    seats = tuple(s.strip() if isinstance(s, str) else s if objects else str(s).strip() for s in seats)
    for i, s in enumerate(seats):
        if isinstance(s, str) and s in CALLER_SEATS:
            raise InputError(ARGUMENTS, "seats", f"player kinds that play by themselves; {s!r} is a person's seat "
                             "(play against the players with magdomino play --seats, or md.game)")
        if not isinstance(s, str) and not callable(getattr(s, "choose", None)):
            raise InputError(ARGUMENTS, "seats", f"seat {i}: a player kind or an object with choose(state) "
                             f"(the player protocol), got {type(s).__name__}")
    check_count(deals, "deals", minimum=1)
    check_choice(physics, "physics", physics_names())
    if physics != "none" and not family_of(rule).judged:
        raise InputError(ARGUMENTS, "physics", f"only with traditional, defi or quinconce ({rule} has no physics)")
    make = players_of(rule)
    for kind in dict.fromkeys(s for s in seats if isinstance(s, str)):
        if kind in OPTIONAL_KINDS:  # its extra is asked for before any player module
            require(OPTIONAL_KINDS[kind][2], f"the {kind} player", key="seats")
        try:
            make(kind, 0)  # an unknown kind (or a missing extra: the message says how to install it)
        except InputError as exc:
            raise InputError(ARGUMENTS, "seats", f"{rule} player kinds: {exc.expected}") from None
    _check_seat_count(rule, len(seats))
    return seats


def seat_names(seats: tuple) -> tuple:
    """``(names, objects)``: each seat's name (a kind; an object's ``kind`` or class name, made
    unique) and the objects by name, ``((name, object), ...)``."""
    names, objects = [], []
    taken = {s for s in seats if isinstance(s, str)}
    for s in seats:
        if isinstance(s, str):
            names.append(s)
            continue
        known = [n for n, o in objects if o is s]
        if known:
            names.append(known[0])
            continue
        base = str(getattr(s, "kind", None) or type(s).__name__)
        name, k = base, 1
        while name in taken or name in names:
            k += 1
            name = f"{base} {k}"
        objects.append((name, s))
        names.append(name)
    return tuple(names), tuple(objects)


def _check_seat_count(rule: str, n: int) -> None:
    try:
        make_game(rule, n, 0)
    except InputError as exc:
        raise InputError(ARGUMENTS, "seats", f"one player kind per seat: {exc.expected}") from None


def run_tournament(rule: str, seats, deals: int, seed: int = 0, physics: str = "none", preset: str | None = None,
                   magnets: bool = True, max_placements: int | None = None, jobs: int | None = None,
                   scheduler: str | None = None, executor=None, out_dir=None, resume: bool = False,
                   progress: bool = False, preset_overrides: dict | None = None) -> dict:
    # long: its NumPy parameter list (14 options, shared by the CLI and md.tournament), then the checks, the play and the JSON document
    """Play a tournament and return its JSON document.

    Parameters
    ----------
    rule : one of :data:`RULES`
    seats : sequence of player kinds or player objects (``choose(state)``, the player
        protocol of :mod:`magdomino.games.session`; named by their ``kind`` or class, and
        played in this process), one per seat (its length is the number of players)
    deals : int > 0
    seed : int >= 0
    physics : ``"dynamics"`` (PyBullet; ``"pybullet"`` is its deprecated spelling), ``"statics"``,
        ``"hybrid"`` or ``"none"`` (tower rules and traditional only)
    max_placements : int or None
        The runaway guard: a deal with this many placements ends abandoned.
    jobs, scheduler, executor : where the deals run (:class:`magdomino.studies.runner.Runner`)
    out_dir, resume : a deal log (``tournament.jsonl``) there; ``resume`` continues it
    progress : a tqdm bar on stderr
    preset_overrides : dict, optional
        ``{key: value}`` in the preset file's keys and units (``{"magnets_scale": 1.1,
        "tile.friction": 0.4}``: :func:`magdomino.model.presets.with_overrides`), with physics.

    Returns
    -------
    dict
        ``kind: "tournament"``, ``version``, ``tournament_version``, ``seed``, ``rule``,
        ``seats``, ``players``, ``deals``, ``seating`` (rotation scheme), ``period`` (n),
        ``balanced``, ``physics``, ``engine``, ``preset``, ``preset_overrides`` (``{}``: none),
        ``preset_description`` (the overridden preset's; with overrides), ``magnets``, ``max_placements``,
        ``score_sense``, ``ended`` ``{natural, abandoned}``, ``seat_counts`` ``{kind: [per
        seat]}``, ``collapses`` and ``placements`` (per deal: ``total``, ``mean``, ``min``,
        ``max``), ``per_kind`` (rows: see
        :func:`per_kind_table`) and ``per_deal`` (rows: ``deal``, ``seed``, ``seating``,
        ``winners`` (seats), ``win_shares`` {kind: share}, ``scores`` (per seat),
        ``reason``, ``ended`` (natural/abandoned), ``collapses``, ``placements``).
    """
    from magdomino.studies.runner import TrialLog, capped_jobs  # noqa: PLC0415 - on use: the runner brings the process pools (~30 ms), which a command's start does without
    seats, objects = seat_names(check_tournament(rule, seats, deals, physics, objects=True))
    physics = physics_name(physics)
    if objects and (jobs not in (None, 1) or scheduler is not None):
        raise InputError(ARGUMENTS, "jobs", "1 with player objects (they play in this process)")
    if objects and executor is None:
        executor = "serial"
    check_seed(seed)
    if max_placements is not None:
        check_count(max_placements, "max_placements", minimum=1)
    if max_placements is not None and family_of(rule).guard is None:
        raise InputError(ARGUMENTS, "max_placements", f"only with traditional, defi or quinconce ({rule} deals end by its rules)")
    if jobs is not None:
        capped_jobs(jobs, 1)  # refused here, before any deal, when not a whole number > 0
    overrides = check_overrides_physics(preset_overrides, physics)
    if physics != "none" and max_placements is None:
        max_placements = PLACEMENT_GUARD  # as every face: a physics game must end
    job = TournamentJob(rule, seats, int(seed), int(deals), physics, preset if physics != "none" else None,
                        bool(magnets), max_placements, tuple(overrides.items()), objects)
    described = job_preset(job) if physics != "none" else None  # an unknown name, a bad file or override refused before any deal
    header = {"kind": "header", "format": "magdomino tournament log 1", "rule": rule, "seats": list(seats),
              "seed": job.seed, "deals": job.deals, "physics": physics, "preset": job.preset,
              "magnets": job.magnets, "max_placements": max_placements}
    if overrides:  # only then: a log written before overrides existed resumes as it was
        header["preset_overrides"] = overrides
    log = None
    if out_dir is not None:
        log = TrialLog(Path(out_dir) / "tournament.jsonl", header, resume, True, lambda r: check_deal_record(r, seats))
    wanted = [(None, d) for d in range(deals)]
    rows = play_missing(run_deals, job, wanted, log, jobs=jobs, scheduler=scheduler, executor=executor, progress=progress)
    per_deal = [{k: v for k, v in rows[None, d].items() if k not in ("what_if", "trial")} for d in range(deals)]
    natural = sum(1 for r in per_deal if r["ended"] == "natural")
    return {
        "kind": "tournament",
        "version": __version__,
        "tournament_version": TOURNAMENT_VERSION,
        "seed": job.seed,
        "rule": rule,
        "seats": list(seats),
        "players": len(seats),
        "deals": job.deals,
        "seating": "block d//n takes the next circular order (first entry fixed), rotated by d%n",
        "period": len(seats),
        "balanced": job.deals % len(seats) == 0,
        "physics": physics,
        "engine": physics,
        "preset": job.preset or (DEFAULT_PRESET if physics != "none" else None),
        "preset_overrides": overrides,
        **({"preset_description": described.description} if overrides else {}),
        "magnets": job.magnets if physics != "none" else None,
        "max_placements": max_placements,
        "score_sense": SCORE_SENSE[rule],
        "ended": {"natural": natural, "abandoned": job.deals - natural},
        "seat_counts": seat_counts(seats, per_deal),
        "collapses": _spread([r["collapses"] for r in per_deal]),
        "placements": _spread([r["placements"] for r in per_deal]),
        "per_kind": per_kind_table(seats, per_deal),
        "per_deal": per_deal,
    }


def play_missing(run_chunk, job, wanted: list[tuple], log=None, *, jobs: int | None = None, scheduler: str | None = None,
                 executor=None, progress: bool = False) -> dict:
    """Play the deals ``wanted`` (``[(what_if, deal), ...]``) that ``log`` does not hold yet, on
    workers, and return every one's record by ``(what_if, deal)``.

    ``run_chunk(job, what_if, deals)`` plays a chunk (:func:`magdomino.studies.runner.execute`'s
    protocol); each record goes to the log as it comes (a killed run keeps them for
    ``resume``), and ticks a tqdm bar on stderr with ``progress``. ``log`` is closed at the end.
    What a deal gives depends on its key alone, so the records are the same for any workers.
    """
    from magdomino.studies.progress import progress_bar  # noqa: PLC0415 - on use, as the runner
    from magdomino.studies.runner import capped_jobs, execute, runner_for  # noqa: PLC0415 - as the progress bar: the runner brings the process pools, which a command's start does without
    keep = set(wanted)
    rows: dict[tuple, dict] = {k: r for k, r in log.records.items() if k in keep} if log else {}
    missing = [k for k in wanted if k not in rows]
    bar = None
    if progress:
        bar = progress_bar(len(wanted), "deal", initial=len(wanted) - len(missing))

    def on_record(record: dict) -> None:
        key = record["what_if"], record["trial"]
        if key in rows:
            return
        if record.get("reason") == "error":
            raise RuntimeError(f"deal {record['trial']}: {record.get('error')}")
        rows[key] = record
        if log:
            log.write(record)
        if bar is not None:
            bar.update(1)

    try:
        if missing:
            workers = capped_jobs(jobs, len(missing))
            if executor is None and scheduler is None and workers == 1:
                executor = "serial"
            with runner_for(executor, workers, scheduler) as runner:
                size = max(1, min(8, math.ceil(len(missing) / (4 * runner.workers))))
                tasks = []
                for what_if, group in itertools.groupby(missing, key=lambda k: k[0]):
                    deals = [d for _, d in group]
                    tasks += [(what_if, deals[i:i + size]) for i in range(0, len(deals), size)]
                execute(runner, run_chunk, job, tasks, on_record)
    finally:
        if bar is not None:
            bar.close()
        if log:
            log.close()
    return rows


def check_overrides_physics(preset_overrides, physics: str) -> dict:
    """The overrides as a dict (``{}``: none); refused without physics (they would change nothing)."""
    if preset_overrides is None:
        return {}
    if not isinstance(preset_overrides, dict) or not all(isinstance(k, str) for k in preset_overrides):
        raise InputError(ARGUMENTS, "preset_overrides", f"a dict of preset keys and values, got {preset_overrides!r}"[:200])
    if preset_overrides and physics == "none":
        raise InputError(ARGUMENTS, "preset_overrides", "only with physics (without physics the preset changes nothing)")
    return dict(preset_overrides)


def seat_counts(seats, per_deal: list[dict]) -> dict:
    """``{kind: [deals it sat at seat 0, seat 1, ...]}`` (equal counts: the seats were balanced)."""
    counts = {k: [0] * len(seats) for k in dict.fromkeys(seats)}
    for r in per_deal:
        for s, kind in enumerate(r["seating"]):
            counts[kind][s] += 1
    return counts


def _spread(values: list[int]) -> dict:
    """Per-deal counts summed up: ``total``, ``mean``, ``min``, ``max``."""
    return {"total": sum(values), "mean": sum(values) / len(values), "min": min(values), "max": max(values)}


def per_kind_table(seats, per_deal: list[dict]) -> list[dict]:
    """One row per player kind (first-seen order of ``seats``): ``kind``, ``seats`` (seats it
    takes each deal), ``games`` (natural deals), ``wins`` (summed shares), ``win_share``,
    ``ci`` [low, high] (exact binomial, 95 %), ``mean_score``, ``score_ci`` [low, high]
    (Student t, 95 %; ``null`` below two scores) and ``scores_n`` (seat scores averaged)."""
    from scipy import stats  # noqa: PLC0415 - imported on use: ~1 s, for the intervals only

    natural = [r for r in per_deal if r["ended"] == "natural"]
    n = len(natural)
    table = []
    for kind in dict.fromkeys(seats):
        wins = sum(r["win_shares"][kind] for r in natural)
        ci = [None, None]
        if n:
            k = min(n, max(0, int(round(wins))))
            low, high = stats.binomtest(k, n).proportion_ci(0.95)
            ci = [float(low), float(high)]
        scores = np.array([s for r in natural for s, who in zip(r["scores"], r["seating"]) if who == kind], dtype=float)
        mean = float(scores.mean()) if scores.size else None
        score_ci = [None, None]
        if scores.size >= 2:
            sem = float(stats.sem(scores))
            if sem > 0:
                low, high = stats.t.interval(0.95, scores.size - 1, loc=mean, scale=sem)
                score_ci = [float(low), float(high)]
            else:
                score_ci = [mean, mean]
        table.append({
            "kind": kind, "seats": sum(1 for s in seats if s == kind), "games": n, "wins": round(wins, 12),
            "win_share": wins / n if n else None, "ci": ci, "mean_score": mean, "score_ci": score_ci,
            "scores_n": int(scores.size),
        })
    return table
