"""The seed article's FileMessageBus, verbatim (../shared/seeds/004_*.txt): the peer that
the filebus format must interoperate with. Only comments were translated."""

import json
import os
import time
import uuid
from pathlib import Path
from typing import List  # noqa: UP035 (the seed's spelling)


class FileMessageBus:
    def __init__(self, team_dir: str = "./.team"):
        self.team_dir = Path(team_dir)
        self.inbox_dir = self.team_dir / "inbox"
        self.inbox_dir.mkdir(parents=True, exist_ok=True)

    def _get_agent_inbox(self, agent_id: str) -> Path:
        p = self.inbox_dir / agent_id.replace("@", "_")
        p.mkdir(exist_ok=True)
        return p

    def send_message(
        self, sender_id: str, recipient_id: str, content: str, msg_type: str = "text"
    ) -> str:
        """Point-to-point atomic delivery."""
        msg_id = f"m_{int(time.time() * 1000)}_{uuid.uuid4().hex[:6]}"
        payload = {
            "msg_id": msg_id,
            "sender": sender_id,
            "recipient": recipient_id,
            "type": msg_type,
            "content": content,
            "timestamp": time.time(),
        }

        inbox = self._get_agent_inbox(recipient_id)
        tmp_file = inbox / f"{msg_id}.tmp"
        final_file = inbox / f"{msg_id}.json"

        # 1. write the whole temp file
        with open(tmp_file, "w", encoding="utf-8") as f:
            json.dump(payload, f, ensure_ascii=False, indent=2)
            f.flush()
            os.fsync(f.fileno())

        # 2. atomic rename: visible to the receiver at once, never torn
        os.replace(tmp_file, final_file)
        return msg_id

    def read_inbox(self, agent_id: str) -> List[dict]:  # noqa: UP006 (the seed's spelling)
        """Read and empty this agent's inbox."""
        inbox = self._get_agent_inbox(agent_id)
        messages = []
        for file in sorted(inbox.glob("*.json")):
            try:
                with open(file, encoding="utf-8") as f:
                    msg = json.load(f)
                messages.append(msg)
                # delete once read: never consumed twice
                file.unlink()
            except Exception:
                continue
        return messages
