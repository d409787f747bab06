// osc_core/owed_targets.hpp: the marks of SEMANTICS 3.9, which let a flush
// that owes a target nothing skip the completion.
#include <gtest/gtest.h>

#include "owed_targets.hpp"

namespace {

using mpinotify::OwedTargets;

TEST(OwedTargets, MarksOfTheTargetsNotedOnly_3_9) {
  OwedTargets owed(100);
  EXPECT_FALSE(owed.owes_any());
  EXPECT_FALSE(owed.owes(4));
  EXPECT_FALSE(owed.take(4));
  owed.note(4);
  owed.note(99);
  EXPECT_TRUE(owed.owes_any());
  EXPECT_TRUE(owed.owes(4));
  EXPECT_TRUE(owed.owes(99));
  EXPECT_FALSE(owed.owes(5));
  EXPECT_TRUE(owed.take(4));
  EXPECT_FALSE(owed.take(4));  // taken
  EXPECT_TRUE(owed.owes(99));
  EXPECT_TRUE(owed.take_all());
  EXPECT_FALSE(owed.owes_any());
  EXPECT_FALSE(owed.owes(99));  // nothing owed after take_all, whatever the marks
  EXPECT_FALSE(owed.take_all());
  owed.note(-3);  // ranks outside the group share a spare mark
  EXPECT_TRUE(owed.owes(100));
  EXPECT_FALSE(owed.owes(0));
}

}  // namespace
