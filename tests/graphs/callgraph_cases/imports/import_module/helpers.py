def load():
    return parse()


def parse():
    return 1
