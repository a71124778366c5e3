from cli.entry import main

main()
