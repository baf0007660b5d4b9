from magdomino.faces.cli import run

run()
