#include "app/cli.hpp"

int main(int argc, char** argv) { return tridsim::main(argc, argv); }
