#pragma once
// The physics modules that ship with tridsim, registered by name (namespace tridsim).
namespace tridsim {
// Registers the modules that ship with tridsim (heat, ...). Safe to call more than once.
void register_builtin_modules();
}  // namespace tridsim
