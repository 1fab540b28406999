"""The tree's run as runs.md's section "UI": (a) the rows, (b) fresh windows, both builds."""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
from typing import Any

from benchlib.runs import machine
from benchlib.stats import median, ms, pct
from ui_bench.tree import WARMUP

SECTION = "## UI"


def stats(xs: list[float]) -> str:
    xs = [x for x in xs if x == x]
    if not xs:
        return "- | - | - | -"
    return f"{len(xs)} | {ms(statistics.median(xs))} | {ms(pct(xs, 90))} | {ms(max(xs))}"


def render(
    runs: dict[str, dict[str, Any]], args: argparse.Namespace, seconds: float, load: tuple[str, str]
) -> str:
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = (
        "`.venv/bin/python bench/bench_ui.py"
        + (f" --old-vsix {args.old_vsix}" if args.old_vsix else "")
        + "`"
    )
    lines = [
        SECTION,
        "",
        f"{cmd}, {when}, {seconds:.0f} s. code-server 4.139.1 (VS Code 1.139) with the .vsix installed, Debian chromium headless"
        " through playwright-core (bench_ui.js); times are wall clock, the page's `performance.timeOrigin + now()` against"
        " this process's `time.time()`.",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {machine()}. Load average (1/5/15 min) at the start"
        f" {load[0]}, at the end {load[1]}.",
        "",
    ]
    new = runs.get("new")
    old = runs.get("old")
    for label, r in runs.items():
        lines.append(
            f"Load average while measuring {label}: {r['load'][0]} before, {r['load'][1]} after;"
            f" the controls before / after: CPU (a fixed JSON round trip, `control_ms`) {r['control'][0]:.1f} /"
            f" {r['control'][2]:.1f} ms, wakeup (a byte to another process and back from idle, `wakeup_us`)"
            f" {r['control'][1]:.0f} / {r['control'][3]:.0f} us."
        )
    lines += ["", "### Summary", ""]
    for label, r in runs.items():
        for name, got in r["rows"]["series"].items():
            lines.append(
                f"- {label}, {name}: write -> row in the DOM p50 {ms(median(got['dom']))} ms, p90 {ms(pct(got['dom'], 90))} ms"
                f" (didChange at a client p50 {ms(median(got['server']))} ms)."
            )
        fr = r["fresh"]

        def p50(key: str, part: list[dict[str, float]]) -> str:
            return ms(median([x.get(key, float("nan")) for x in part]))

        lines.append(
            f"- {label}, fresh window, all runs: activation -> teams p50 {p50('activation_to_teams', fr)} ms,"
            f" click -> teams p50 {p50('click_to_teams', fr)} ms; the live teams: activation -> p50"
            f" {p50('activation_to_live', fr)} ms, click -> p50 {p50('click_to_live', fr)} ms."
        )
        if len(fr) > 1:
            lines.append(
                f"- {label}, fresh window after a restart (runs 2-{len(fr)}; the new build draws the last session's teams):"
                f" activation -> teams p50 {p50('activation_to_teams', fr[1:])} ms, click -> teams p50"
                f" {p50('click_to_teams', fr[1:])} ms; first start (run 1, nothing remembered): activation -> teams"
                f" {p50('activation_to_teams', fr[:1])} ms."
            )
    lines.append(
        "- Targets: write -> row p50 <= 30 ms, p90 <= 50 ms; teams <= 1 s after activation, <= 2.5 s after the click."
    )
    if new and old:
        for name in new["rows"]["series"]:
            if name in old["rows"]["series"]:
                a, b = (
                    median(new["rows"]["series"][name]["dom"]),
                    median(old["rows"]["series"][name]["dom"]),
                )
                lines.append(f"- Ratio new/old, {name}: {a / b:.2f} ({ms(a)} vs {ms(b)} ms).")
        for key, what in (
            ("click_to_teams", "click -> teams"),
            ("activation_to_teams", "activation -> teams"),
        ):
            a, b = median([x[key] for x in new["fresh"]]), median([x[key] for x in old["fresh"]])
            lines.append(f"- Ratio new/old, {what}: {a / b:.2f} ({ms(a)} vs {ms(b)} ms).")
    lines += [
        "",
        f"### (a) A peer's write -> its row ({args.n} writes per inbox after {WARMUP} warm-up, 0.7 s apart"
        + (f"; the teammate's inbox holding {args.prefill} messages first" if args.prefill else "")
        + ")",
        "",
    ]
    lines += [
        "Clock starts just before `rename`. Two passes in the same code-server: first the extension's sidecar alone"
        " (what a person sees), then the same number of writes with the instruments running. `DOM`: a MutationObserver"
        " in the page sees a row description holding the summary; `frame`: the next animation frame after it; the"
        " frame rows: the page's websocket frames of that write (kept as they came, decoded after the row showed)."
        " `didChange`: a pygls client of a second sidecar on the same folder (benchlib's Session); `watchdog`: a"
        " bare Observer in this process (benchlib's BareWatch).",
        "",
        "| build | inbox | measure | n | p50 ms | p90 ms | max ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, r in runs.items():
        for name, got in r["rows"]["series"].items():
            for key, what in (
                ("dom", "write -> row in the DOM"),
                ("frame", "write -> next frame"),
                ("refresh", "write -> first frame in (the host's `$refresh`)"),
                ("ask", "write -> first frame out after it (`$getChildren`)"),
                ("reply", "write -> the frame in holding the summary"),
                ("dom+", "with the instruments: write -> row in the DOM"),
                ("server", "with the instruments: write -> didChange at a client"),
                ("bare", "with the instruments: write -> bare watchdog callback"),
            ):
                if key in got:
                    lines.append(f"| {label} | {name} | {what} | {stats(got[key])} |")
        lines.append(
            f"| {label} | | rows that never showed in 10 s | {r['rows']['misses']} | | | |"
        )
    lines += ["", f"### (b) Fresh window ({args.fresh} code-server starts per build)", ""]
    lines += [
        "code-server started anew each time on the same scratch HOME with the extension installed once (run 1 is"
        " the first start after installing; the new build caches the bundled Python's bytecode in its global"
        " storage then, the old one never does); a new browser context; the icon is clicked as soon as it is"
        " visible. `activate()`: the extension's own `activated at` log line (new build only).",
        "",
        "`teams`: the first team row (after a restart, the last session's, which the extension remembers);"
        " `live`: the first member row, which only the sidecar's answer brings. Run 1 has nothing remembered.",
        "",
        "| build | run | " + " | ".join(h for _, h in FRESH_COLUMNS) + " |",
        "|---|---|" + "---|" * len(FRESH_COLUMNS),
    ]
    for label, r in runs.items():
        fr = r["fresh"]
        for i, x in enumerate(fr):
            cells = [f"{x.get(k, float('nan')):.0f}" for k, _ in FRESH_COLUMNS]
            lines.append(f"| {label} | {i + 1} | " + " | ".join(cells).replace("nan", "-") + " |")
        for what, part in (("median", fr), ("median of restarts (2-)", fr[1:])):
            if part:
                cells = [
                    ms(median([x.get(k, float("nan")) for x in part])) for k, _ in FRESH_COLUMNS
                ]
                lines.append(f"| {label} | {what} | " + " | ".join(cells) + " |")
    lines += ["", NOTES.strip()]
    return "\n".join(lines) + "\n"


FRESH_COLUMNS = (
    ("icon_to_click", "icon shown -> click ms"),
    ("click_to_teams", "click -> teams ms"),
    ("activation_to_teams", "activation -> teams ms"),
    ("activate_to_teams", "activate() -> teams ms"),
    ("click_to_live", "click -> live ms"),
    ("activation_to_live", "activation -> live ms"),
)

NOTES = """
### Where the time goes

- A peer's write, new build, frame by frame (the websocket rows above): the sidecar sees the rename
  through inotify at once and hands the hint to its event loop on the next turn (no timer), reads
  and diffs the inbox, and sends `didChange` before any other publisher's work (attention, member
  states). The extension applies the delta to the cached page and fires one refresh of that inbox
  node, with no request to the sidecar; VS Code's extension host sends `$refresh` to the window
  (the first frame in), the window asks `$getChildren` of that inbox (the first frame out), the
  host answers from the cache (the frame holding the summary), and the window renders the rows.
  That render is script (`--trace`): VS Code re-renders every row of the refreshed node (~0.3-0.7
  ms a row: its label, icon, inline actions, indent guides), which is why an inbox draws its
  newest 10; style, layout and paint come after the row is in the DOM. The badge, the status
  bar's count and the team row's counts follow (50 ms later; the team row in VS Code's next
  refresh, which it holds back 200 ms), off the row's path.
- "With the instruments": the same writes while a second sidecar (the `didChange` client) and a
  bare watchdog observer also react to them: on two cores they compete with the extension's own
  sidecar, the extension host and the browser, which is why the row is measured alone first.
- A fresh window: the Python sidecar's start is most of it (importing pygls, whose lsprotocol
  defines ~630 attrs classes). The new build spawns it from activate() at once, keeps the bundled
  libraries' bytecode and attrs' generated code (codecache.py) in its global storage, and draws
  the teams it listed last time (collapsed, from a memo in its workspace storage) until the
  sidecar answers; run 1 has no memo yet. The old build loaded vscode-languageclient first and
  started Python twice (a probe, then the server).
- On a busy machine every hop waits for a core: compare builds from the same run, and the
  didChange and watchdog rows beside them.
"""
