"""mqgen — turn the mqlink API description into each language's glue.

The stages, each a module:

    model     the objects a description is made of (Api, Klass, Func, Param)
    types     the one type table: C lowering and a column per language
    parse     description text -> model, every line validated (FILE:LINE errors)
    plan      model -> a CallPlan per function: the C call, spelled out once
    cxx, python_*   emitters: a CallPlan -> one language's text
    registry  the emitters by output name (what the build and golden test run)
    check     the header coverage test (api_test.sh)
    cli       the command line (wrappers/gen/mqgen.py calls it)

Standard library only; the output depends on nothing but the description.
See wrappers/gen/README.md.
"""
