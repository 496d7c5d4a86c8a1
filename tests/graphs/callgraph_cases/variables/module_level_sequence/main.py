def old():
    return 0


def new():
    return 1


def later():
    return 2


handler = old
handler = new
handler()
handler = later
