def timed(fn):
    def wrapper():
        return fn()

    return wrapper


@timed
def load():
    return 1


@timed
def save():
    return 2


load()
