"""The team view's three targets, each beside its comparison from the same run and window."""

from __future__ import annotations

from typing import Any

from benchlib.stats import median, ms, pct


def _verdict(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def scroll_windows(tv: dict[str, Any]) -> list[dict[str, Any]]:
    """Each scroll beside the page's floor measured right after it (the view closed)."""
    runs = [{"deltas": tv["scroll"]["deltas"], "load": tv["scroll"].get("load", "?")}]
    runs += tv.get("scroll_more", [])
    floors = tv.get("page_floor", [])
    out = []
    for run, floor in zip(runs, floors, strict=False):
        view, base = pct(run["deltas"], 95), pct(floor, 95)
        out.append({"view": view, "floor": base, "load": run.get("load", "?")})
        out[-1]["diff"], out[-1]["ratio"] = view - base, view / base if base else float("nan")
    return out


def render_targets(tv: dict[str, Any], writes: list[dict[str, Any]], step: int) -> list[str]:
    lines = ["#### The three targets, each beside its comparison in the same run", ""]
    # 1. scroll
    win = scroll_windows(tv)
    if win:
        diff = median([w["diff"] for w in win])
        lines.append(
            f"1. Scroll back through {tv['total']:,} messages at {step} px a frame, rAF delta p95 in the"
            f" view's frame against the floor's p95 (the same fling over plain paragraphs in the"
            f" workbench's own page, the view closed: a headless code-server page with no view code),"
            f" measured right after each scroll, {len(win)} windows: median view p95"
            f" {ms(median([w['view'] for w in win]))} ms, floor p95 {ms(median([w['floor'] for w in win]))} ms,"
            f" difference {ms(diff)} ms (target <= +3 ms: {_verdict(diff <= 3)}), ratio"
            f" {median([w['ratio'] for w in win]):.2f}. Per window (view / floor / load):"
            + "; ".join(f" {ms(w['view'])} / {ms(w['floor'])} / {w['load']}" for w in win)
            + "."
        )
    # 2. open
    opens, floor = tv["open"], tv.get("open_floor") or []
    if opens and floor:
        painted, bare = [x["frame"] for x in opens], [x["frame"] for x in floor]
        paired = [a - b for a, b in zip(painted, bare, strict=False)]
        over = median(painted) - median(bare)
        lines.append(
            f"2. Open -> the newest messages painted, against VS Code's own webview creation: a bare"
            f" webview (bench/floor/webview: a command opening a panel of static HTML, no script)"
            f" opened the same way in the same window, its content painted; {len(opens)} opens of"
            f" each, paired, the order swapped each pair. The view painted p50 {ms(median(painted))}"
            f" ms (p90 {ms(pct(painted, 90))}), the bare webview p50 {ms(median(bare))} ms (p90"
            f" {ms(pct(bare, 90))}): +{ms(over)} ms at the median (target <= +60 ms:"
            f" {_verdict(over <= 60)}); paired differences p50 {ms(median(paired))} ms; ratio"
            f" {median(painted) / median(bare):.2f}. Where the view's time goes (p50, ms after the"
            f" command): its webview frame made {ms(median([x['outer'] for x in opens]))} (the bare"
            f" one's {ms(median([x['outer'] for x in floor]))}), its script ran"
            f" {ms(median([x['thread'] for x in opens]))}, the host's `init` in"
            f" {ms(median([x['init'] for x in opens]))}, the newest in the DOM"
            f" {ms(median([x['dom'] for x in opens]))}."
        )
    # 3. writes, fresh and warm
    if writes:
        parts = []
        for kind in ("fresh", "warm"):
            rows = [w for w in writes if w["kind"] == kind]
            both = [x for w in rows for x in w["both"]]
            if not both:
                continue
            p50, p90 = median(both), pct(both, 90)
            ok = p50 <= 30 and p90 <= 50
            per = ", ".join(
                f"{ms(median(w['both']))}/{ms(pct(w['both'], 90))}" for w in rows if w["both"]
            )
            parts.append(
                f"{kind} ({'first-ever start' if kind == 'fresh' else 'a restart'}, {len(rows)} windows,"
                f" n {len(both)}): p50 {ms(p50)} ms, p90 {ms(p90)} ms ({_verdict(ok)}; per window"
                f" p50/p90 {per}; the view alone p50 {ms(median([x for w in rows for x in w['view']]))},"
                f" the tree alone {ms(median([x for w in rows for x in w['tree']]))})"
            )
        lines.append(
            "3. A teammate's write -> its message in the open team view AND its row in the tree (the"
            " later of the two, the same write; target p50 <= 30 ms, p90 <= 50 ms): "
            + "; ".join(parts)
            + "."
        )
        doing = [x for w in writes for x in w["doing"]]
        lines.append(
            f'4. A transcript row (a Bash call) -> the member\'s "now doing" in the same open view'
            f" (the follow pass included): p50 {ms(median(doing))} ms, p90 {ms(pct(doing, 90))} ms"
            f" (n {len(doing)}; target p50 <= 300 ms: {_verdict(median(doing) <= 300)})."
        )
    return lines + [""]
