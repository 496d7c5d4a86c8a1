def load():
    return 1


def store():
    return 2


reader, writer = load, store
reader()
