def run():
    return "function"


class Task:
    def run(self):
        return run()

    def start(self):
        return self.run()


Task().start()
