def ping():
    return "ping"


def inner(callback=None):
    return callback()


def outer(**options):
    return inner(**options)


outer(callback=ping)
