"""PseudoClaude as its real code behaves: whose inbox is whose, what a send can promise."""

from __future__ import annotations

import json

import pytest

from support import member_of, roster_of
from support.world import CODER_ID, LEAD_ID, TESTER_ID, Teams, write_json
from teaminbox import marking, sending
from teaminbox.errors import NotOwned, UnknownMessage


def pc_config(teams: Teams, **tester: object) -> None:
    cfg = json.loads((teams.pseudo_dir / "config.json").read_bytes())
    for m in cfg["members"]:
        if m["agent_id"] == TESTER_ID:
            m.update(tester)
    write_json(teams.pseudo_dir / "config.json", cfg)


def test_a_note_to_the_lead_agent_is_from_the_person_not_from_itself(teams: Teams) -> None:
    """The person acts as the lead, but the lead agent reads lead-<team>.json too."""
    [res] = sending.send(roster_of(teams.settings, "beta"), "lead", "please re-plan step 3")
    assert res.ok and res.inbox == LEAD_ID
    entry = json.loads(teams.pinbox(LEAD_ID).read_bytes())["messages"][-1]
    assert (entry["from"], entry["to"], entry["content"]) == (
        "user",
        LEAD_ID,
        "please re-plan step 3",
    )
    # a broadcast still goes to the teammates only
    results = sending.send(roster_of(teams.settings, "beta"), "all", "stand-up")
    assert sorted(r.recipient for r in results) == ["coder", "tester"]


def test_send_to_an_idle_in_process_member_says_it_waits(teams: Teams) -> None:
    pc_config(teams, is_active=False, backend_type="in-process")
    [res] = sending.send(roster_of(teams.settings, "beta"), "tester", "run the suite")
    assert res.ok and res.note is not None
    assert "tester is idle" in res.note and "resumes tester" in res.note
    [busy] = sending.send(roster_of(teams.settings, "beta"), "coder", "x")
    assert busy.note is None
    pc_config(teams, is_active=False, backend_type="tmux")  # a pane polls on its own
    [pane] = sending.send(roster_of(teams.settings, "beta"), "tester", "x")
    assert pane.note is None


@pytest.mark.parametrize("team,inbox", [("beta", "coder"), ("alpha", "user")])
def test_unknown_ids_are_an_error_naming_them(teams: Teams, team: str, inbox: str) -> None:
    r, m = member_of(teams.settings, team, inbox)
    with pytest.raises(UnknownMessage) as err:
        marking.set_read(r, m, ["p-0-deadbeef00", "c-nope"], discard=True)
    assert "p-0-deadbeef00" in err.value.message and "c-nope" in err.value.message


def test_the_lead_inbox_is_never_marked_read_without_discard(teams: Teams) -> None:
    sending.send(roster_of(teams.settings, "beta"), "lead", "note")
    r, lead = member_of(teams.settings, "beta", "lead")
    assert lead.owned and lead.consumed and not marking.writes_file(r, lead)
    before = teams.pinbox(LEAD_ID).read_bytes()
    with pytest.raises(NotOwned):
        marking.set_read(r, lead, [], every=True)
    assert teams.pinbox(LEAD_ID).read_bytes() == before


def test_names_for_every_spelling_of_a_pseudoclaude_sender(teams: Teams) -> None:
    r = roster_of(teams.settings, "beta")
    assert r.name_of(CODER_ID) == "coder" and r.name_of("coder") == "coder"
    assert r.name_of("lead") == "lead" and r.name_of(LEAD_ID) == "lead"
    assert r.name_of("lead-beta") == "lead" and r.name_of("stranger") == "stranger"


def test_identity_format_spelling(teams: Teams) -> None:
    from teaminbox.discovery import Settings
    from teaminbox.errors import InvalidParams

    s = Settings.build([], defaults=False, identity=["Claude=bob"])
    assert s.identity["claude"] == "bob" and s.identity["pseudoclaude"] is None
    with pytest.raises(InvalidParams, match="unknown format 'nope'"):
        Settings.build([], defaults=False, identity=["nope=bob"])
