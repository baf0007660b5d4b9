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
    assert connections.give_back(key, late, None)  # open: kept (reset, since it was not clean)
    assert late.resets == 1 and connections.take_client(key) == (late, None)
    connections._drain_pool()
    assert idle.disconnects == 1 and connections._pool == {}
    assert not connections.give_back(key, Client(), (1, 0))  # closed: the caller disconnects it
    assert connections.take_client(key) is None


def test_a_connection_inherited_from_another_process_is_not_pooled(monkeypatch):
    monkeypatch.setattr(connections, "_pool", {})
    monkeypatch.setattr(connections, "_pool_closed", False)
    assert not connections.give_back((os.getpid() + 1, 0.0005, 30, 0.4, 9.81), Client(), (1, 0))
    assert connections._pool == {}


class NoFlush:
    """A replaced stdout without ``flush`` (an odd wrapper some hosts install)."""

    def write(self, text):
        return len(text)


def test_silencing_c_output_copes_with_an_odd_python_stream(monkeypatch):
    monkeypatch.setattr("sys.stdout", NoFlush())
    with connections.quiet_c_output():
        os.write(1, b"from C: silenced\n")


def test_silencing_c_output_copes_without_a_c_library(monkeypatch):
    # Where ctypes cannot open the C library (OSError), C stdio is not flushed, and the
    # descriptors come back all the same.
    import ctypes

    def no_library(name):
        raise OSError("no C library here")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    before = os.fstat(1)
    with connections.quiet_c_output():
        os.write(1, b"from C: silenced\n")
    assert os.fstat(1).st_ino == before.st_ino


def test_silencing_c_output_copes_with_a_c_library_without_fflush(monkeypatch):
    import ctypes

    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())
    with connections.quiet_c_output():
        os.write(1, b"from C: silenced\n")


def test_what_c_writes_meanwhile_goes_nowhere_and_then_comes_back(capfd):
    with connections.quiet_c_output():
        os.write(1, b"C on stdout\n")
        os.write(2, b"C on stderr\n")
    os.write(1, b"after\n")
    out, err = capfd.readouterr()
    assert out == "after\n" and err == ""
