"""The lexer's decision for each place an input can land in shell text (one test per context)."""

from __future__ import annotations

import pytest

from gui.core.sequences.shell.reading import Place
from gui.core.sequences.substitution import shell_landings


def places(template: str) -> list[str]:
    return [landing.place.value for landing in shell_landings(template)]


def test_between_words_or_glued_to_unquoted_text_it_is_a_word():
    assert places("echo $args.x --name=$args.y a$args.z") == ["word"] * 3


def test_inside_double_quotes_it_is_double_quoted_also_after_an_escaped_quote():
    assert places('echo "a \\" $args.x" "$args.y"') == ["double-quoted", "double-quoted"]


def test_inside_single_quotes_it_is_single_quoted_and_a_double_quote_there_is_text():
    assert places("echo '\"$args.x' \"'\" $args.y") == ["single-quoted", "word"]


def test_inside_command_substitution_it_is_read_as_a_command_of_its_own():
    assert places('echo $(echo $args.x "$args.y" \'$args.z\')') == ["word", "double-quoted", "single-quoted"]
    assert places('echo "$(echo "$args.x")"') == ["double-quoted"]


def test_a_case_pattern_inside_command_substitution_does_not_end_it():
    assert places('x=$(case a in (a) echo 1;; b|c) echo 2;; esac) "$args.x"') == ["double-quoted"]
    assert places("x=$(case a in a) echo $args.x;; esac; echo ')') '$args.y'") == ["word", "single-quoted"]


def test_inside_backquotes_it_is_backquoted_whatever_the_quotes_inside():
    assert places('echo `echo "$args.x"` $args.y') == ["backquoted", "word"]
    assert places('echo "`echo \\` $args.x`"') == ["backquoted"]


def test_inside_a_parameter_expansion_it_is_a_parameter_even_inside_quotes_there():
    assert places('echo ${X:-$args.x} "${X:-"$args.y"}" ${X:-\'}\'} $args.z') == ["parameter", "parameter", "word"]


def test_inside_arithmetic_it_is_arithmetic():
    assert places("echo $(( $args.x + (2 * $args.y) )) $args.z") == ["arithmetic", "arithmetic", "word"]


def test_bash_arithmetic_is_arithmetic_too_double_parentheses_old_brackets_and_array_indexes():
    # bash evaluates each of these (an index `a[$(cmd)]` in the value runs cmd), even inside '…'
    assert places("(( $args.x > 1 )) && echo $args.y") == ["arithmetic", "word"]
    assert places("echo $[ $args.x + 1 ] $args.y") == ["arithmetic", "word"]
    assert places("a[$args.x]=1 b[ '$args.y' ]=2; echo [$args.z]") == ["arithmetic", "arithmetic", "word"]
    assert places("a=([$args.x]=1 $args.y); echo $args.z") == ["arithmetic", "arithmetic", "word"]


def test_a_subshell_inside_command_substitution_is_not_arithmetic_when_spaced():
    assert places("echo $( (echo $args.x) )") == ["word"]


def test_after_a_backslash_it_is_refused_but_after_an_escaped_backslash_it_is_a_word():
    assert places('echo \\$args.x "\\$args.y" \\\\$args.z') == ["after-backslash", "after-backslash", "word"]


def test_in_a_comment_it_is_a_comment_and_a_hash_inside_a_word_is_text():
    assert places("echo a#$args.x # $args.y\necho $args.z") == ["word", "comment", "word"]
    assert places("echo $(echo a # ) $args.x\n) $args.y") == ["comment", "word"]


def test_inside_dollar_single_quotes_it_is_dollar_quoted():
    assert places("echo $'a\\n$args.x' $args.y") == ["dollar-quoted", "word"]


@pytest.mark.parametrize("opener", ["<<EOF", "<<'EOF'", '<<"EOF"', "<<\\EOF", "<< EOF"])
def test_in_a_here_document_body_it_is_refused_whatever_the_delimiter_and_after_it_reading_goes_on(opener):
    assert places(f"cat {opener}; echo $args.x\nline $args.y\n  EOF\nEOF\necho $args.z") == [
        "word", "heredoc", "word"]


def test_a_dash_here_document_ends_at_its_delimiter_after_tabs():
    assert places("cat <<-EOF\n\tbody $args.x\n\tEOF\necho '$args.y'") == ["heredoc", "single-quoted"]


def test_a_continued_line_in_a_here_document_cannot_end_it():
    assert places("cat <<EOF\na \\\nEOF\n$args.x\nEOF\necho $args.y") == ["heredoc", "word"]


def test_two_here_documents_on_one_line_are_read_in_order():
    assert places("cat <<A <<B\n$args.x\nA\n$args.y\nB\necho $args.z") == ["heredoc", "heredoc", "word"]


def test_an_input_as_the_delimiter_of_a_here_document_is_refused_and_so_is_all_after_it():
    assert places("cat <<$args.x\nbody\n$args.y") == ["heredoc-delimiter", "unclear"]


def test_where_dash_and_bash_read_differently_everything_after_is_unclear():
    assert places('echo "${X:-\'}\'}" $args.x') == ["unclear"]  # dash: ''} ; bash: '}'
    assert places("echo $'a\\'b' $args.x") == ["unclear"]  # bash: one string; older dash: two
    assert places("echo $(cat <<EOF) $args.x\nbody\nEOF\n") == ["unclear"]


def test_lines_after_a_command_that_may_define_an_alias_are_unclear_the_same_line_is_not():
    # dash (and bash --posix) expand `q` on the next line: the input would sit inside the alias's '
    assert places("alias q=\"printf %s '\"\nq $args.x'") == ["unclear"]
    assert places("alias q=x; echo $args.x\necho $args.y") == ["word", "unclear"]
    assert places(". ./env.sh\necho $args.x") == ["unclear"]
    assert places("v=alias; $v q=1\necho $args.x") == ["unclear"]


def test_text_nested_too_deeply_to_read_leaves_the_input_unclear():
    assert places("echo " + "$(" * 2000 + "echo $args.x" + ")" * 2000) == ["unclear"]


def test_a_line_continuation_joins_words_and_is_not_a_newline():
    assert places("echo a \\\n $args.x") == ["word"]


def test_the_escape_for_the_literal_text_is_no_input():
    assert shell_landings("echo $$args.x '$$args.y'") == []


def test_every_place_has_a_test():  # (each place's value below has a test above)
    tested = {"word", "double-quoted", "single-quoted", "dollar-quoted", "after-backslash", "backquoted",
              "parameter", "arithmetic", "heredoc", "heredoc-delimiter", "comment", "unclear"}
    assert tested == {place.value for place in Place}
