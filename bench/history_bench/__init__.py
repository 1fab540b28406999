"""bench_history.py's parts: a session team as Claude Code writes it, capture under a burst, the
generated heavy history, the benches on it, the report."""
