def double(x):
    return x * 2


def is_even(x):
    return x % 2 == 0


def weight(x):
    return -x


numbers = [1, 2, 3]
list(map(double, numbers))
list(filter(is_even, numbers))
sorted(numbers, key=weight)
max(numbers, key=weight)
