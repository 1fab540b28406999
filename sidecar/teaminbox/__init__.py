"""Team Inbox: read, send and watch agent-team inboxes without losing a message."""

__version__ = "0.1.0"
