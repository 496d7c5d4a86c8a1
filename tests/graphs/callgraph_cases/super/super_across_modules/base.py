class Handler:
    def __init__(self, name):
        self.name = name

    def handle(self, request):
        return request
