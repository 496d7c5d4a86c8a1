class Lock:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class Counter:
    def __init__(self):
        self.lock = Lock()
        self.value = 0

    def bump(self):
        with self.lock:
            self.value += 1


Counter().bump()
