"""bench_store.py's parts: the inboxes it writes, Claude Code's Node writer, our writer timed
under its lock, the contended and the single-writer runs, the report."""
