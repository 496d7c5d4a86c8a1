class Job:
    def run(self):
        return self.step()


class Export(Job):
    def step(self):
        return "export"


class CsvExport(Export):
    pass


class Import(Job):
    def step(self):
        return "import"


CsvExport().run()
Import().run()
