#pragma once
// Boundary conditions of a box (namespace tridsim): the kind of each face (core/boundary_kind.hpp)
// and its data, an expression of x, y, z, t.
// A face is a 2-D array over its own axes p < q (the two other axes), x-fastest:
// face node (ip, iq) <-> grid node with index `fixed` along `axis`.
#include <array>
#include <vector>

#include "core/boundary_kind.hpp"
#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"

namespace tridsim {

class NativeBatch;

// "x-", "x+", "y-", ...: the deck's name of the face (axis, side), side 0: lo, 1: hi.
const char* face_name(int axis, int side);

struct Face {
  int axis = 0, side = 0;  // side 0: lo, 1: hi
  BoundaryKind kind = BoundaryKind::dirichlet;
  // Under MPI, a side of a rank's local box where a neighbour rank continues the grid: its nodes are
  // halos, fixed like Dirichlet nodes during a step (kind dirichlet, value 0, never imposed), and
  // `deck_kind` is the condition the deck gives the whole grid's face there.
  bool interface = false;
  BoundaryKind deck_kind = BoundaryKind::dirichlet;
  Expression value;
  int p = 1, q = 2;        // the face's own axes
  index_t np = 1, nq = 1;  // its size
  index_t fixed = 0;       // node index along `axis`

  index_t size() const { return np * nq; }
  const char* name() const;  // x-, x+, y-, ...
  // Grid index of face node (ip, iq), x-fastest.
  index_t node(const Grid& g, index_t ip, index_t iq) const {
    std::array<index_t, 3> ijk{};
    ijk[axis] = fixed;
    ijk[p] = ip;
    ijk[q] = iq;
    return g.index(ijk[0], ijk[1], ijk[2]);
  }
  // Evaluate the face's expression at every face node at time t.
  template <class T>
  void evaluate(const Grid& g, double t, T* out) const;
};

// The deck's map of face `name` in a module's `boundary` section: boundary.NAME, else boundary.all
// (else a DeckError there).
DeckNode face_spec(const DeckNode& boundary, const std::string& name);

class Boundary {
 public:
  // Reads `boundary:` ({x-: {type, value}, ..., all: {...}}) for the active axes of `grid`; the
  // sides marked in `interfaces` (a rank's local box under MPI) become interface faces. With
  // `periodic`, a face may also be {type: periodic} (no value), on the axes periodic_axes gives.
  void read(const DeckNode& section, const Grid& grid, const Constants& constants,
            const std::array<std::array<bool, 2>, 3>& interfaces = {}, bool periodic = false);
  // The axes (of the first `dim`) whose faces `section`'s boundary makes periodic: both faces of an
  // axis periodic or neither, else a DeckError at the type that is not.
  static std::array<bool, 3> periodic_axes(const DeckNode& section, int dim);

  const Grid& grid() const { return grid_; }
  const std::vector<Face>& faces() const { return faces_; }
  const Face& face(int axis, int side) const { return faces_[index_[axis][side]]; }
  BoundaryKind kind(int axis, int side) const { return face(axis, side).kind; }
  bool dirichlet(int axis, int side) const { return kind(axis, side) == BoundaryKind::dirichlet; }
  bool neumann(int axis, int side) const { return kind(axis, side) == BoundaryKind::neumann; }
  bool periodic(int axis) const { return grid_.periodic[axis]; }
  // The deck's condition on the whole grid's face of (axis, side), also where this box has an interface.
  BoundaryKind deck_kind(int axis, int side) const { return face(axis, side).deck_kind; }
  // True when some Dirichlet value depends on time (so boundary nodes change every step).
  bool dirichlet_moves() const { return dirichlet_moves_; }
  // Is grid node (i,j,k) on a Dirichlet face?
  bool on_dirichlet(const std::array<index_t, 3>& ijk) const;

  // Every face's data (Dirichlet values, Neumann derivatives) are finite at each of `times` (the
  // first only where they do not move), else a DeckError at the face's `value` in `section`.
  void require_finite(const DeckNode& section, const std::vector<double>& times) const;

  // The data of every face that move with t (evaluated at every step) join `batch`, to be
  // evaluated by the code it compiles.
  void compile_moving(NativeBatch& batch);

  // u = g(t) on every Dirichlet face (faces of later axes win where faces meet).
  template <class T>
  void impose_dirichlet(double t, T* u) const;

 private:
  Grid grid_;
  std::vector<Face> faces_;
  std::array<std::array<int, 2>, 3> index_{};
  bool dirichlet_moves_ = false;
};

}  // namespace tridsim
