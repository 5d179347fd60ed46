#include "core/expression_fill.hpp"

#include "core/expression_translate.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "core/device_expression.hpp"
#endif

namespace tridsim {

template <class T>
void fill_on_backend(const DeckNode& section, const std::string& key, const Expression& e, Backend backend,
                     const Grid& g, double t, T* out) {
#if TRIDSIM_HAVE_CUDA
  if (backend == Backend::cuda && !e.is_constant()) {
    translate_expression_from_deck(section, key, e.constants());
    DeviceExpression<T>(e).fill_host(g, t, out);
    return;
  }
#else
  (void)section, (void)key, (void)backend;
#endif
  e.fill(g, t, out);
}

template void fill_on_backend<float>(const DeckNode&, const std::string&, const Expression&, Backend, const Grid&,
                                     double, float*);
template void fill_on_backend<double>(const DeckNode&, const std::string&, const Expression&, Backend, const Grid&,
                                      double, double*);

}  // namespace tridsim
