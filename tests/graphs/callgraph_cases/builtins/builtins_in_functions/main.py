def describe(items):
    if isinstance(items, list):
        return abs(min(items))
    return repr(items)


def show(items):
    print(describe(items))


show([-1, -5])
