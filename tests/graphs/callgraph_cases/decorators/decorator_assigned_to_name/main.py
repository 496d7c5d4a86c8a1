def logged(fn):
    def wrapper():
        return fn()

    return wrapper


def tagged(tag):
    def decorate(fn):
        return fn

    return decorate


alias = logged
mark = tagged("io")


@alias
def read():
    return 1


@mark
def write():
    return 2


read()
write()
