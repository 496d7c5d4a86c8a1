def len(obj):
    return 0


def size(items):
    return len(items)


def maximum(items):
    return max(items)


size([1, 2])
maximum([1, 2])
