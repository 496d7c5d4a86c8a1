def scale(value):
    return value


def make_scaler(k):
    return lambda x: scale(x * k)


triple = make_scaler(3)
triple(2)
