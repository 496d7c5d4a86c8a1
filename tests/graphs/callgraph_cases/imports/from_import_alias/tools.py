def compress(data):
    return data


def expand(data):
    return data


def unused(data):
    return data
