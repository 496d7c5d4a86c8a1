def head():
    return 0


def middle():
    return 1


def tail():
    return 2


first, *rest = [head, middle, tail]
first()
for fn in rest:
    fn()
