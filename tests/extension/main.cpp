// mysim: the whole tridsim command line (run, check, info, bench) with the modules and writers
// compiled into this executable added to the built-in ones. decay_module.cpp registers the
// module "decay", probe_writer.cpp the output format "probe".
#include "app/cli.hpp"

int main(int argc, char** argv) { return tridsim::main(argc, argv); }
