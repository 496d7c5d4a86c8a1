from app.jobs import nightly

nightly.run()
