def mark(fn):
    return fn


def build():
    @mark
    def step():
        return 1

    return step()


build()
