def double(x):
    return x * 2


def triple(x):
    return x * 3


def total(a, b):
    return a + b


result = total(double(2), triple(3))
