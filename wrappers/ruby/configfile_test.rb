# configfile_test.rb — MqConfigFileC from Ruby: typed reads with defaults and
# the FILE:LINE of a syntax error.
require_relative 'taptest'
require 'mqlink'
require 'tmpdir'
include Mqlink

Dir.mktmpdir do |dir|
  good = File.join(dir, "good.cfg")
  File.write(good, "name = \"srv\";\nport = 4711;\nbig = 9223372036854775807L;\nflag = true;\nratio = 0.5;\n")
  bad = File.join(dir, "bad.cfg")
  File.write(bad, "name = \"x\";\nport = ;\n")

  test "typed reads and defaults" do
    c = MqConfigFileC.new
    c.Read(good)
    check c.GetSTR("name") == "srv" && c.GetI64("port") == 4711
    check c.GetI64("big") == 2**63 - 1
    check c.GetBOL("flag") == true && c.GetDBL("ratio") == 0.5
    check c.GetSTR("missing", "dflt") == "dflt" && c.GetI64("missing", -1) == -1
    check c.Exists("name") && !c.Exists("missing")
    raises(ArgumentError) { c.GetSTR }
  end

  test "a syntax error raises MkExceptionC naming FILE:LINE" do
    c = MqConfigFileC.new
    e = raises(MkExceptionC) { c.Read(bad) }
    check e.message.include?("bad.cfg:2"), e.message
  end
end
