def countdown(n):
    if n > 0:
        countdown(n - 1)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


countdown(3)
is_even(4)
