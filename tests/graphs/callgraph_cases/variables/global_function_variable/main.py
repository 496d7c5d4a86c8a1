def default_handler():
    return 0


def custom_handler():
    return 1


HANDLER = default_handler


def dispatch():
    return HANDLER()


dispatch()
