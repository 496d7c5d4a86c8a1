def first():
    return 1


def second():
    return 2


def pick(flag):
    a = lambda: first()
    b = lambda: second()
    return a() if flag else b()


other = lambda: 0
pick(True)
