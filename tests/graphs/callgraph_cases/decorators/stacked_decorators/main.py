def outer_deco(fn):
    def outer_wrapper():
        return fn()

    return outer_wrapper


def inner_deco(fn):
    def inner_wrapper():
        return fn()

    return inner_wrapper


@outer_deco
@inner_deco
def payload():
    return 1


payload()
