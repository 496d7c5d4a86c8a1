class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


def get_incrementer():
    c = Counter()
    return c.bump


inc = get_incrementer()
inc()
inc()
