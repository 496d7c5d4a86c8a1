def ready():
    return True


def step():
    return 1


def finish():
    return 2


def loop(n):
    while n > 0 and ready():
        n -= step()
    else:
        finish()
    return n


def unreachable_but_static():
    if False:
        step()


loop(2)
