# serving_latency: llama3-70b-serve: time to first token and time per output token against load
# Draws serving_latency.svg and serving_latency.png from serving_latency.dat; run `gnuplot serving_latency.gp` in this folder.
do for [fmt in 'svg png'] {
	reset
	if (fmt eq 'svg') {
		set terminal svg dynamic size 960,540 font 'sans,12' background '#ffffff' noenhanced
	} else {
		set terminal pngcairo size 960,540 font 'sans,10' background '#ffffff' noenhanced
	}
	set output 'serving_latency.'.fmt
	set style textbox opaque noborder
	set multiplot title 'llama3-70b-serve: time to first token and time per output token against load' font ',14'
	set label 132 'llama3-70b-serve | hardware as_of 2026-08-21 to 2026-08-22 | roofcost 0.1.0' at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'
	# panel 1
	set lmargin at screen 0.0900; set rmargin at screen 0.3575
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title 'TTFT' font ',11'
	set xlabel 'requests in flight per replica'
	set ylabel 'TTFT (s)'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set logscale x 2
	set format x '%g'
	set logscale y 10
	set format y '%g'
	set yrange [0.0454545:5.11797]
	set ytics (0.05, 0.1, 0.2, 0.5, 1, 2, 5)
	set key at screen 0.7550, screen 0.8800 left top vertical Left reverse samplen 2.5 spacing 1.1 font ',10' noenhanced
	set arrow 1 from graph 0, first 2 to graph 1, first 2 nohead dt (5,4) lw 1.5 lc rgb '#333333' front
	set label 1 'limit 2000 ms (p99)' at graph 0.01, first 2 offset 0, character 0.6 left font ',9' tc rgb '#333333' front
	plot 'serving_latency.dat' index 0 using 1:2 with linespoints lw 2 dt 1 pt 5 ps 0.55 lc rgb '#e69f00' title 'p5en.48xlarge mean', \
	     'serving_latency.dat' index 1 using 1:2 with linespoints lw 2 dt (7,4) pt 5 ps 0.55 lc rgb '#e69f00' title 'p5en.48xlarge p99', \
	     'serving_latency.dat' index 2 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.55 lc rgb '#0072b2' title 'trn2.48xlarge mean', \
	     'serving_latency.dat' index 3 using 1:2 with linespoints lw 2 dt (7,4) pt 7 ps 0.55 lc rgb '#0072b2' title 'trn2.48xlarge p99'
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	# panel 2
	set lmargin at screen 0.4675; set rmargin at screen 0.7350
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title 'TPOT' font ',11'
	set xlabel 'requests in flight per replica'
	set ylabel 'TPOT (ms)'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set logscale x 2
	set format x '%g'
	set logscale y 10
	set format y '%g'
	set yrange [9.09091:445.921]
	set ytics (10, 20, 50, 100, 200)
	unset key
	set arrow 1 from graph 0, first 50 to graph 1, first 50 nohead dt (5,4) lw 1.5 lc rgb '#333333' front
	set label 1 'limit 50 ms (p99)' at graph 0.01, first 50 offset 0, character 0.6 left font ',9' tc rgb '#333333' front
	plot 'serving_latency.dat' index 4 using 1:2 with linespoints lw 2 dt 1 pt 5 ps 0.55 lc rgb '#e69f00' title 'p5en.48xlarge mean', \
	     'serving_latency.dat' index 5 using 1:2 with linespoints lw 2 dt (7,4) pt 5 ps 0.55 lc rgb '#e69f00' title 'p5en.48xlarge p99', \
	     'serving_latency.dat' index 6 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.55 lc rgb '#0072b2' title 'trn2.48xlarge mean', \
	     'serving_latency.dat' index 7 using 1:2 with linespoints lw 2 dt (7,4) pt 7 ps 0.55 lc rgb '#0072b2' title 'trn2.48xlarge p99'
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	unset multiplot
	unset output
}
