#pragma once
// The tridsim command line (run, check, info, bench; namespace tridsim). An outside program that
// registers its own modules calls this from its main() to get the whole driver.
namespace tridsim {
int main(int argc, char** argv);
}
