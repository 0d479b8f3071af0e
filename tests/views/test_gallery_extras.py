"""The gallery on a lean install: without MuJoCo (the optional extra ``mujoco``) the command
leaves out the entries that run gymnasium's Swimmer, says which and how to enable them, and
builds the others."""

from __future__ import annotations

from dynamics.sbeed import swimmer
from views.figures import ENTRIES, command


def test_the_swimmer_entries_are_left_out_saying_why_where_mujoco_is_missing(monkeypatch,
                                                                              capsys):
    ids = list(ENTRIES)
    swimmers = [i for i in ids if any("swimmer" in run for run in ENTRIES[i].runs)]
    assert swimmers, "no gallery entry runs the Swimmer"
    assert command._without_missing_simulator(ids) == (ids if swimmer.installed() else
                                                       [i for i in ids if i not in swimmers])
    monkeypatch.setattr(swimmer, "installed", lambda: False)
    kept = command._without_missing_simulator(ids)
    assert kept == [i for i in ids if i not in swimmers] and len(kept) == len(ids) - len(swimmers)
    err = capsys.readouterr().err
    assert all(i in err for i in swimmers) and swimmer.ENABLE in err
    monkeypatch.setattr(swimmer, "installed", lambda: True)
    assert command._without_missing_simulator(ids) == ids
