"""What the benches share: their statistics, runs.md, the inboxes they write, the server
session, Node's writer package and code-server. Nothing here measures on its own."""
