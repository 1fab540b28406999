"""The team view's run as the subsection of runs.md's "Team view", the tree's figures beside."""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any

from benchlib.runs import RESULTS, machine, write_section
from benchlib.stats import median, ms, pct
from ui_bench.report_targets import render_targets

TV_SECTION = "## Team view"
TV_SUB = "### Speed and memory in code-server (`bench_ui.py --teamview`)"


def dist(xs: list[float]) -> dict[str, float]:
    xs = [x for x in xs if x == x]
    return {
        "n": len(xs),
        "p50": median(xs),
        "p90": pct(xs, 90),
        "p95": pct(xs, 95),
        "p99": pct(xs, 99),
        "max": max(xs) if xs else float("nan"),
    }


def render_teamview(
    r: dict[str, Any], args: argparse.Namespace, seconds: float, load: tuple[str, str]
) -> str:
    """The team view's figures and the tree's from the same run, as the subsection TV_SUB."""
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    tv = r["teamview"]
    cmd = (
        f"`.venv/bin/python bench/bench_ui.py --teamview --n {args.n} --fresh {args.fresh} --opens {args.opens}"
        + f" --scroll-step {args.scroll_step} --scrolls {args.scrolls} --writes {args.writes}"
        + (" --no-tree" if args.no_tree else "")
        + (f" --vsix {args.vsix}" if args.vsix else "")
        + "`"
    )
    opens = tv["open"]
    first, rest = opens[:1], opens[1:]
    w = tv["writes"]
    sc = tv["scroll"]
    deltas = sc["deltas"]
    over = lambda xs, t: sum(1 for x in xs if x > t)  # noqa: E731
    loafs = sc["loafs"]
    mb = lambda b: f"{b / 1e6:.1f}" if isinstance(b, (int, float)) else "-"  # noqa: E731
    kb = lambda d, k: (  # noqa: E731
        " / ".join(f"{v.get(k, 0) / 1024:.0f}" for v in d.values()) if d else "-"
    )
    tree = (r.get("rows") or {}).get("series", {})
    fr = r.get("fresh") or []
    m0, m1, mg = tv["mem_before"], tv["mem_after"], tv["mem_gc"]
    hv = tv.get("heap_no_view") or {"heap": 0, "nodes": 0}
    hg = m1.get("cdp") or mg.get("cdp") or {"heap": 0, "nodes": 0}
    hg = mg.get("cdp") or hg
    ar = tv["all_renderers"]
    ren0 = sum(v.get("rss", 0) for v in ar["before"].values())
    ren1 = sum(v.get("rss", 0) for v in ar["after"].values())
    pss0 = sum(v.get("pss", 0) for v in ar["before"].values())
    pss1 = sum(v.get("pss", 0) for v in ar["after"].values())
    pre_rss = sum(v.get("rss", 0) for v in ar.get("pre_scroll", {}).values())
    pre_pss = sum(v.get("pss", 0) for v in ar.get("pre_scroll", {}).values())
    lines = [
        TV_SUB,
        "",
        f"{cmd}, {when}, {seconds:.0f} s; code-server 4.139.1 (VS Code 1.139), Debian chromium headless through"
        " playwright-core. Machine: " + machine() + ".",
        f"Load average (1/5/15 min): {load[0]} at the start, {load[1]} at the end; the controls before / after"
        f" (bench_ui's CPU `control_ms`, wakeup `wakeup_us`): {r['control'][0]:.1f} / {r['control'][2]:.1f} ms,"
        f" {r['control'][1]:.0f} / {r['control'][3]:.0f} us. A shared 2-core machine: medians and ratios.",
        "",
        f"Team `big`: {tv['archived']:,} messages written into its three inboxes (one a minute, ~150-300"
        f" characters, every fifth with a markdown list), archived by the extension's sidecar"
        f" ({tv['archive_s']:.1f} s after the window opened), then pruned from the inboxes to the newest 5 each as"
        f" Claude Code's consumer does ({tv['gone']:,} marked gone in the history). The view is opened by a"
        " keybinding that runs `teamInbox.openTeam` with the team's id (`ctrl+alt+f10`, written into the"
        " profile's keybindings.json): the clock starts at its keydown in the workbench and stops when the"
        " newest message is in the view's thread (a MutationObserver on the view's thread, set by a watcher"
        " that `addInitScript` puts into VS Code's webview host frame: it finds the thread within 4 ms of the"
        " view's script making it; VS Code writes the view's document with document.write, which clears"
        " anything installed in the inner frame itself), and at the next animation frame"
        " after it (`frame`). The view is closed between opens (`workbench.action.closeAllEditors`).",
        "",
        *render_targets(tv, r.get("writes") or [], args.scroll_step),
        "#### Figures",
        "",
        "| measure | n | p50 ms | p90 ms | p95 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]

    def row(what: str, xs: list[float]) -> None:
        d = dist(xs)
        lines.append(
            f"| {what} | {d['n']} | {ms(d['p50'])} | {ms(d['p90'])} | {ms(d['p95'])} | {ms(d['max'])} |"
        )

    row(
        "open: command -> VS Code's webview frame made (its timeOrigin), first open",
        [x["outer"] for x in first],
    )
    row(
        "open: command -> the view's script ran (its thread element made), first open",
        [x["thread"] for x in first],
    )
    row("open: command -> the host's `init` in the view, first open", [x["init"] for x in first])
    row("open: command -> newest message in the DOM, first open", [x["dom"] for x in first])
    row("open: command -> next frame, first open", [x["frame"] for x in first])
    row("open: command -> VS Code's webview frame made, opens 2-", [x["outer"] for x in rest])
    row("open: command -> the view's script ran, opens 2-", [x["thread"] for x in rest])
    row("open: command -> the host's `init` in the view, opens 2-", [x["init"] for x in rest])
    row("open: command -> newest message in the DOM, opens 2-", [x["dom"] for x in rest])
    row("open: command -> next frame, opens 2-", [x["frame"] for x in rest])
    row("teammate's write -> the host's `upsert` in the view", w.get("upsert", []))
    row("teammate's write -> message in the view's DOM", w["dom"])
    row(
        "interleaved with those, in the same window: a write to alpha -> its row in the tree",
        w.get("tree", []),
    )
    row("teammate's write -> next frame in the view", w["frame"])
    for name, got in tree.items():
        row(f"tree, {name}: write -> row in the DOM", got["dom"])
        if "reply" in got:
            row(f"tree, {name}: write -> the frame in holding the summary", got["reply"])
    row(
        "tree, fresh window run 1 (nothing remembered): click -> first team row",
        [x["click_to_teams"] for x in fr[:1]],
    )
    row(
        "tree, fresh window runs 2- (restarts): click -> first team row",
        [x["click_to_teams"] for x in fr[1:]],
    )
    row("scroll: rAF delta in the view's frame", deltas)
    row("idle: rAF delta in the view's frame (2 s, before the scroll)", tv["idle"])
    if tv.get("floor"):
        row(
            f"floor: the same fling over a static copy of the thread ({tv['floor']['copies']:,} messages, laid out)",
            tv["floor"]["deltas"],
        )
    row(
        "scroll: an older page's wait (the top reached -> its messages in)",
        [x["wait"] for x in sc["pages"] if x["wait"]],
    )
    lines += [
        "",
        f"Scroll frames over 16.7 ms: {over(deltas, 16.7)} of {len(deltas)}; over 33.4 ms (two or more frames"
        f" dropped): {over(deltas, 33.4)}; over 50 ms: {over(deltas, 50)}. Pages loaded on the way: {len(sc['pages'])}"
        f" (200 each). Long animation frames (the LoAF API, over 50 ms"
        + ("" if sc.get("loafSupported") else "; not supported by this chromium")
        + f"): {len(loafs)}"
        + (
            f", longest {max(x['dur'] for x in loafs):.0f} ms; their script {sum(x['script'] for x in loafs):.0f} ms"
            f" and style and layout {sum(x['layout'] for x in loafs):.0f} ms in all"
            if loafs
            else ""
        )
        + ".",
        "",
        f"Memory of the view (the thread holding {m1['msgs']:,} messages in its DOM"
        + (
            f" of the {m1['held']:,} it holds (a window: at most {sc['maxDom']:,} in the DOM during the scroll)"
            if m1.get("held") == m1.get("held") and m1.get("held") is not None and "maxDom" in sc
            else ""
        )
        + f", {m1['nodes']:,} elements in the frame;"
        f" {m0['msgs']:,} and {m0['nodes']:,} before the scroll): `performance.memory` in the webview's inner frame"
        f" (chromium with `--enable-precise-memory-info`) used / total JS heap {mb(m0['used'])} / {mb(m0['total'])} MB"
        f" before, {mb(m1['used'])} / {mb(m1['total'])} MB after, {mb(mg['used'])} MB used after a GC."
        + (
            " CDP `Performance.getMetrics` on the frame's own target: "
            + ", ".join(f"{k} {v:,.0f}" for k, v in (m1.get("cdp") or {}).items())
            + "."
            if m1.get("cdp") and not tv.get("heap_no_view")
            else " The view's frame is not a process of its own (code-server serves webviews from its own"
            " origin, so chromium keeps them in the workbench's renderer): the heap above is that renderer's"
            " isolate, the workbench's included. The view's own share, after a GC each time (CDP"
            " `HeapProfiler.collectGarbage`, then `Performance.getMetrics` on the page): JS heap"
            f" {mb(hv['heap'])} MB and {hv['nodes']:,.0f} DOM nodes with no view open, {mb(hg['heap'])} MB and"
            f" {hg['nodes']:,.0f} nodes after the scroll with the view open: the view holds"
            f" {mb(hg['heap'] - hv['heap'])} MB of JS heap; the renderers' RSS below counts the rest (layout, style, Blink's own heap)."
        )
        + f" Renderer processes that appeared with the view: {len(tv['view_pids'])}"
        + (
            f" (RSS / PSS MiB before the scroll {kb(tv['rss_before'], 'rss')} / {kb(tv['rss_before'], 'pss')},"
            f" after {kb(tv['rss_after'], 'rss')} / {kb(tv['rss_after'], 'pss')})"
            if tv["view_pids"]
            else ""
        )
        + f". Every chromium renderer's RSS together (/proc/<pid>/smaps_rollup): {ren0 / 1024:.0f} MiB before the view"
        f" was opened, {ren1 / 1024:.0f} MiB after the scroll ({(ren1 - ren0) / 1024:+.0f} MiB; PSS"
        f" {pss0 / 1024:.0f} -> {pss1 / 1024:.0f} MiB)"
        + (
            f"; with the view open and the writes done, just before the scroll: {pre_rss / 1024:.0f} MiB"
            f" (PSS {pre_pss / 1024:.0f}), so the scroll itself added {(ren1 - pre_rss) / 1024:+.0f} MiB RSS,"
            f" {(pss1 - pre_pss) / 1024:+.0f} MiB PSS (after a GC)."
            if pre_rss
            else "."
        ),
    ]
    return "\n".join(lines) + "\n"


def write_teamview(text: str) -> None:
    """Put TV_SUB into the team view's section: in place of the old one, or of the paragraph that
    said it was not measured; the bundle's figures above it stay."""
    old = RESULTS.read_text()
    start = old.find(TV_SECTION)
    if start < 0:
        write_section(TV_SECTION + "\n\n" + text, TV_SECTION)
        return
    end = old.find("\n## ", start + len(TV_SECTION))
    end = len(old) if end < 0 else end + 1
    body = old[start:end]
    cut = body.find(TV_SUB)
    if cut < 0:
        cut = body.find("Not measured yet:")
    if cut < 0:
        cut = len(body.rstrip())
    # a later subsection of the section (### ..., a write-up of its own) stays after the new text
    after = body.find("\n### ", cut + len(TV_SUB)) if body.startswith(TV_SUB, cut) else -1
    rest = body[after + 1 :] if after >= 0 else ""
    new_body = body[:cut].rstrip() + "\n\n" + text.rstrip() + "\n" + ("\n" + rest if rest else "")
    tail = old[end:]
    RESULTS.write_text(old[:start] + new_body + ("\n" + tail if tail else ""))
