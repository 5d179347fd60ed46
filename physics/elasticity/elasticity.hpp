#pragma once
// Elasticity module (namespace tridsim): small-strain linear elasticity of a rectangular plate in
// plane stress or plane strain, on the grid's nodes as the nodes of bilinear 4-node (Q4)
// elements (q4_element.hpp). Faces are clamped, rollers, loaded by tractions or free; several
// load cases (tractions, body forces) are solved together, one multi-right-hand-side solve after
// one Cholesky factorization by the multifrontal sparse direct solver (solvers/sparse_direct/).
// Writes each case's displacement as a vector field and its von Mises stress at the nodes.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/module.hpp"
#include "physics/elasticity/q4_element.hpp"

namespace tridsim {

namespace elastic {

enum class Model { plane_stress, plane_strain };
inline constexpr NameEntry<Model> kModelNames[] = {
    {"plane-stress", Model::plane_stress, "a thin plate: szz = 0"},
    {"plane-strain", Model::plane_strain, "a long body: ezz = 0 (per unit thickness)"}};

enum class FaceType { free, clamped, roller, traction };
inline constexpr NameEntry<FaceType> kFaceTypeNames[] = {
    {"free", FaceType::free, "no support, no load"},
    {"clamped", FaceType::clamped, "both displacement components given (value: [ux, uy], default 0)"},
    {"roller", FaceType::roller, "the normal component given (ux on x faces, uy on y faces; value, default 0)"},
    {"traction", FaceType::traction, "loaded by a traction (tx, ty) per unit area, per load case"}};

}  // namespace elastic

template <class T>
class ElasticityModule final : public Module {
 public:
  ElasticityModule();
  ~ElasticityModule() override;
  void setup(const Grid& grid, const DeckNode& section, const SetupContext& context, double t0) override;
  void step(double t, double dt) override;
  std::vector<FieldRef> fields() override;
  std::vector<Diagnostic> diagnostics(double t) override;
  bool steady() const override { return true; }
  // Fields per case, the stiffness matrix (9 blocks of 2x2 per node) and the right-hand sides;
  // the factor's own size is known after the analysis and checked in setup().
  double arrays_per_point() const override { return 64; }

  // After step(), for tests and tools. Case c's displacement holds (ux, uy, 0) per node, nodes
  // x-fastest: component k of node i + nx*j at [k + 3*(i + nx*j)].
  int load_cases() const;
  const std::string& case_name(int c) const;
  const std::vector<T>& displacement(int c) const;
  const std::vector<T>& von_mises(int c) const;
  // Case c's displacement at a point of the plate (the bilinear interpolant of its element).
  std::array<double, 2> displacement_at(int c, double x, double y) const;
  // ||b - K u||_2 / ||b||_2, the largest over the load cases, after refinement.
  double relative_residual() const;
  double factor_seconds() const;
  double solve_seconds() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tridsim
