def prepare():
    return 1


def finalize():
    return 2
