from contextlib import contextmanager


class Conn:
    def send(self):
        return 1


@contextmanager
def connect():
    yield Conn()


with connect() as conn:
    conn.send()
