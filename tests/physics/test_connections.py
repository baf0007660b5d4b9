"""The connection pool (magdomino.physics.connections): once drained at exit, it keeps no
connection (a world closed after that disconnects its own)."""

import os

from magdomino.physics import connections


class Client:
    def __init__(self):
        self.resets = self.disconnects = 0

    def resetSimulation(self):
        self.resets += 1

    def disconnect(self):
        self.disconnects += 1


def test_a_drained_pool_disconnects_its_clients_and_takes_no_more(monkeypatch):
    idle = Client()
    key = (os.getpid(), 0.0005, 30, 0.4, 9.81)
    monkeypatch.setattr(connections, "_pool", {key: [(idle, None)]})
    monkeypatch.setattr(connections, "_pool_closed", False)
    late = Client()
    assert connections._give_back(key, late, None)  # open: kept (reset, since it was not clean)
    assert late.resets == 1 and connections._take_client(key) == (late, None)
    connections._drain_pool()
    assert idle.disconnects == 1 and connections._pool == {}
    assert not connections._give_back(key, Client(), (1, 0))  # closed: the caller disconnects it
    assert connections._take_client(key) is None


def test_a_connection_inherited_from_another_process_is_not_pooled(monkeypatch):
    monkeypatch.setattr(connections, "_pool", {})
    monkeypatch.setattr(connections, "_pool_closed", False)
    assert not connections._give_back((os.getpid() + 1, 0.0005, 30, 0.4, 9.81), Client(), (1, 0))
    assert connections._pool == {}
