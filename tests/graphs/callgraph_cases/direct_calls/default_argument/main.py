def default_size():
    return 10


def make_buffer(size=default_size()):
    return [0] * size


def reader():
    return make_buffer()


reader()
