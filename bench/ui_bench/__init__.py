"""bench_ui.py's parts: the tree's benches, the team view's, their reports, the host's controls."""
