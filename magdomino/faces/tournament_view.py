"""A tournament document (:func:`magdomino.games.tournament.run_tournament`) as a table and a figure."""

from __future__ import annotations

from magdomino.faces.plots import save


def _num(x, fmt="{:.3f}") -> str:
    return "-" if x is None else fmt.format(x)


def format_tournament(doc: dict) -> str:
    """A readable summary: the settings, one line per player kind, how the deals ended."""
    sense = {"lower": " (lower is better)", "higher": " (higher is better)"}.get(doc.get("score_sense"), "")
    over = ", ".join(f"{k} = {v}" for k, v in (doc.get("preset_overrides") or {}).items())
    head = (f"tournament: {doc['rule']}, seats {', '.join(doc['seats'])}, {doc['deals']} deals, seed {doc['seed']}, "
            f"physics {doc['physics']}" + (f" (preset {doc['preset']}{' with ' + over if over else ''})" if doc.get("preset") else ""))
    lines = [head, f"{'kind':<10} {'seats':>5} {'wins':>8} {'win share':>9}  {'95 % interval':<15} "
                   f"{'mean score':>10}  95 % interval{sense}"]
    for r in doc["per_kind"]:
        lo, hi = r["ci"]
        slo, shi = r["score_ci"]
        lines.append(f"{r['kind']:<10} {r['seats']:>5} {r['wins']:>8.2f} {_num(r['win_share']):>9}  "
                     f"[{_num(lo)}, {_num(hi)}]  {_num(r['mean_score'], '{:.2f}'):>10}  "
                     f"[{_num(slo, '{:.2f}')}, {_num(shi, '{:.2f}')}]")
    rows = doc["per_deal"]
    ended = doc["ended"]
    lines.append(f"deals ended naturally: {ended['natural']}; abandoned (runaway guard, not scored): {ended['abandoned']}")
    if any(r["collapses"] for r in rows) or doc["physics"] != "none":
        c = [r["collapses"] for r in rows]
        lines.append(f"collapses per deal: mean {sum(c) / len(c):.2f}, max {max(c)}")
    p = [r["placements"] for r in rows]
    lines.append(f"placements per deal: mean {sum(p) / len(p):.1f}, min {min(p)}, max {max(p)}")
    if not doc.get("balanced", True):
        lines.append(f"note: {doc['deals']} deals is not a multiple of {doc['period']}: seats not exactly balanced")
    return "\n".join(lines)


def tournament_figure(doc: dict, path, key: str = "plot") -> str:
    """Win share per kind with its 95 % interval; collapses and placements per deal. Returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = doc["per_kind"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    shares = [r["win_share"] or 0.0 for r in rows]
    err = [[max(0.0, s - (r["ci"][0] if r["ci"][0] is not None else s)) for s, r in zip(shares, rows)],
           [max(0.0, (r["ci"][1] if r["ci"][1] is not None else s) - s) for s, r in zip(shares, rows)]]
    ax.bar([r["kind"] for r in rows], shares, yerr=err, capsize=6, color="tab:blue")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share (95 % interval)")
    ax.set_title(f"{doc['rule']}: {doc['ended']['natural']} deals scored")
    deals = [r["deal"] for r in doc["per_deal"]]
    bx.plot(deals, [r["placements"] for r in doc["per_deal"]], ".", label="placements", color="tab:gray")
    if doc["physics"] != "none" or any(r["collapses"] for r in doc["per_deal"]):  # flat games never collapse
        bx.plot(deals, [r["collapses"] for r in doc["per_deal"]], "x", label="collapses", color="tab:red")
    gone = [r["deal"] for r in doc["per_deal"] if r["ended"] == "abandoned"]
    if gone:
        bx.plot(gone, [0] * len(gone), "v", color="k", label="abandoned")
    bx.set_xlabel("deal")
    bx.set_ylabel("per deal")
    bx.legend()
    fig.suptitle(f"tournament, seats {', '.join(doc['seats'])}, seed {doc['seed']}, physics {doc['physics']}")
    fig.tight_layout()
    try:
        return str(save(fig, path, key, dpi=100))
    finally:
        plt.close(fig)
